/**
 * Shares identical reads among concurrent callers without ever answering a caller with a read that
 * began before it asked. A caller joins the read queued to start next, never one already in flight:
 * every answer was read after its caller arrived, so sharing never makes an answer staler than an
 * unshared read would be. Under load, one read per key is in flight and one queued, whatever the
 * number of callers.
 */
export class FreshReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly queued = new Map<string, Promise<T>>();

  read(key: string, load: () => Promise<T>): Promise<T> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const running = this.inFlight.get(key);
    if (!running) return this.start(key, load);
    const settled = () => undefined;
    const next = running.then(settled, settled).then(() => {
      this.queued.delete(key);
      return this.start(key, load);
    });
    this.queued.set(key, next);
    return next;
  }

  private start(key: string, load: () => Promise<T>): Promise<T> {
    const p = load();
    this.inFlight.set(key, p);
    const done = () => {
      if (this.inFlight.get(key) === p) this.inFlight.delete(key);
    };
    p.then(done, done);
    return p;
  }
}
