/**
 * Shares identical reads among concurrent callers without ever answering a caller with a read that
 * began before it asked. A caller joins the read queued to start next, never one already in flight:
 * every answer was read after its caller arrived, so sharing never makes an answer staler than an
 * unshared read would be. Under load, one read per key is in flight and one queued, whatever the
 * number of callers.
 *
 * A queued read starts `startDelayMs` (given by the caller that queues it) after it may: after that
 * caller arrived, or after the read before it ended; 0: on the next turn of the event loop. Every
 * caller arriving meanwhile shares it. Requests come in bursts (viewers answered together come back
 * together, a few milliseconds apart): a short delay lets a whole burst share one read instead of
 * its first request starting a read that all the others must wait out before theirs, the way
 * PostgreSQL's commit_delay groups commits.
 */
export class FreshReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly queued = new Map<string, Promise<T>>();

  read(key: string, load: () => Promise<T>, startDelayMs = 0): Promise<T> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const settled = () => undefined;
    const free = this.inFlight.get(key)?.then(settled, settled) ?? Promise.resolve();
    const next = free
      .then(() => new Promise<void>((resolve) => (startDelayMs > 0 ? setTimeout(resolve, startDelayMs) : setImmediate(resolve))))
      .then(() => {
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
