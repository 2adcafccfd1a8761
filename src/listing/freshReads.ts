/**
 * Shares identical reads among concurrent callers without ever answering a caller with a read that
 * began before it asked. A caller joins the read queued to start next, never one already in flight:
 * every answer was read after its caller arrived, so sharing never makes an answer staler than an
 * unshared read would be. Under load, one read per key is in flight and one queued, whatever the
 * number of callers.
 *
 * A load may say when its reading is done (`readDone`: say, its statement answered, so its snapshot
 * was taken), before it settles (the answer is still being computed from what it read): the next
 * read may start then, so computing one answer overlaps reading the next. It also learns how many
 * callers share it (`callers`).
 *
 * A queued read starts `startDelayMs` (given by the caller that queues it) after it may: after that
 * caller arrived, or after the read before it was done; 0: on the next turn of the event loop. Every
 * caller arriving meanwhile shares it. Requests come in bursts (viewers answered together come back
 * together, a few milliseconds apart): a short delay lets a whole burst share one read instead of
 * its first request starting a read that all the others must wait out before theirs, the way
 * PostgreSQL's commit_delay groups commits.
 */
export class FreshReads<T> {
  /** per key, the read in flight: settles when it is done reading */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** per key, the read queued to start next and how many callers joined it */
  private readonly queued = new Map<string, { read: Promise<T>; callers: number }>();

  read(key: string, load: (readDone: () => void, callers: number) => Promise<T>, startDelayMs = 0): Promise<T> {
    const queued = this.queued.get(key);
    if (queued) {
      queued.callers++;
      return queued.read;
    }
    const free = this.inFlight.get(key) ?? Promise.resolve();
    const next: { read: Promise<T>; callers: number } = {
      callers: 1,
      read: free
        .then(
          () =>
            new Promise<void>((resolve) =>
              startDelayMs > 0 ? setTimeout(resolve, startDelayMs) : setImmediate(resolve),
            ),
        )
        .then((): Promise<T> => {
          this.queued.delete(key);
          return this.start(key, (readDone) => load(readDone, next.callers));
        }),
    };
    this.queued.set(key, next);
    return next.read;
  }

  private start(key: string, load: (readDone: () => void) => Promise<T>): Promise<T> {
    let readDone!: () => void;
    const reading = new Promise<void>((resolve) => (readDone = resolve));
    this.inFlight.set(key, reading);
    const done = () => {
      if (this.inFlight.get(key) === reading) this.inFlight.delete(key);
      readDone();
    };
    reading.then(done);
    const p = load(readDone);
    p.then(done, done);
    return p;
  }
}
