/**
 * A background task run every `intervalMs` until stopped: one run at a time (a slow run makes the
 * next tick skip), a failed run is logged and tried again at the next tick, and stop() waits for
 * the run in progress. A task that works through several items checks `stopping()` between them,
 * so a stop waits for the current item only.
 */
export interface Periodic {
  stop(): Promise<void>;
}

export type Task = (stopping: () => boolean) => Promise<unknown>;

/** `immediately`: the first run starts now rather than after the first interval. */
export function runEvery(
  intervalMs: number,
  task: Task,
  onError: (err: unknown) => void,
  options: { immediately?: boolean } = {},
): Periodic {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const stopping = () => stopped;
  const tick = () => {
    if (running) return;
    running = task(stopping)
      .catch(onError)
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  if (options.immediately) tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
