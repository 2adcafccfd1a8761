/**
 * Shares identical reads among concurrent callers without ever answering a caller with a read that
 * began before it asked. A caller joins the read queued to start next, never one already in flight:
 * every answer was read after its caller arrived, so sharing never makes an answer staler than an
 * unshared read would be. Under load, one read per key is in flight and one queued, whatever the
 * number of callers.
 *
 * A queued read starts one turn of the event loop after it may (after the caller that queued it
 * arrived, or after the read before it ended), so callers arriving together, as a burst of requests
 * read from the network in one turn does, share it.
 */
export class FreshReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly queued = new Map<string, Promise<T>>();

  read(key: string, load: () => Promise<T>): Promise<T> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const settled = () => undefined;
    const free = this.inFlight.get(key)?.then(settled, settled) ?? Promise.resolve();
    const next = free.then(nextTurn).then(() => {
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

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
