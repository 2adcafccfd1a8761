/**
 * Counts the statements a service instance sends that may write: those in flight, and those done
 * since the instance started. A mark taken before a read stays `quiet` while none was sent since:
 * nothing this instance sent can have changed what that read saw. The listing's reads and the
 * lease's statements (Db.listingReads, Db.unwatched) are not counted; anything else is, so a read
 * elsewhere counts as a write, which costs a check, never freshness.
 */
export class WriteWatch {
  private inFlight = 0;
  private done = 0;

  /** Runs `send`, counted from before it is sent until it settled (for a transaction: until its COMMIT or ROLLBACK answered). */
  async around<T>(send: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await send();
    } finally {
      this.inFlight--;
      this.done++;
    }
  }

  /** Ends every mark's quiet, as a write would: something this instance did not send may have changed the database. */
  mayHaveChanged(): void {
    this.done++;
  }

  /** A mark of now, for `quiet`. */
  mark(): number {
    return this.done;
  }

  /** True while no statement that may write was sent since `mark` was taken (nor is one in flight). */
  quiet(mark: number): boolean {
    return this.inFlight === 0 && this.done === mark;
  }
}
