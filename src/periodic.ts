/**
 * A background task run every `intervalMs` until stopped: one run at a time (a slow run makes the
 * next tick skip), a failed run is logged and tried again at the next tick, and stop() waits for
 * the run in progress.
 */
export interface Periodic {
  stop(): Promise<void>;
}

export function runEvery(intervalMs: number, task: () => Promise<unknown>, onError: (err: unknown) => void): Periodic {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .catch(onError)
      .finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
