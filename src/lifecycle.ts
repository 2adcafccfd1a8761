/**
 * The instance's place in its life: serving, or draining after SIGTERM. While it drains /readyz
 * answers 503 so the proxy stops sending, and every answer asks the client to close its
 * connection, so kept-alive connections move to another instance before this one stops accepting.
 */
export class Lifecycle {
  private drainingSince: number | null = null;

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  startDraining(now = Date.now()): void {
    this.drainingSince ??= now;
  }
}

export interface ShutdownSteps {
  lifecycle: Lifecycle;
  /** how long the instance keeps serving with /readyz at 503 (SHUTDOWN_GRACE_MS) */
  graceMs: number;
  /** stops accepting and waits for the requests in flight */
  closeServer(): Promise<void>;
  /** background jobs stop after their current item */
  stopJobs(): Promise<void>;
  /** database pools, Redis */
  closeConnections(): Promise<void>;
  log: { info(obj: object, msg: string): void };
}

/** The drain after SIGTERM, in its order; resolves when everything is closed. */
export async function drain(steps: ShutdownSteps): Promise<void> {
  const started = Date.now();
  steps.lifecycle.startDraining(started);
  steps.log.info({ graceMs: steps.graceMs }, 'draining: /readyz answers 503, still serving');
  await new Promise((r) => setTimeout(r, steps.graceMs));
  await Promise.all([steps.closeServer(), steps.stopJobs()]);
  await steps.closeConnections();
  steps.log.info({ drainMs: Date.now() - started }, 'drained');
}
