/**
 * A background task run every `intervalMs` until stopped: one run at a time (a slow run makes the
 * next tick skip), a failed run is logged and tried again at the next tick, and stop() waits for
 * the run in progress. A task that works through several items checks `stopping()` between them,
 * so a stop waits for the current item only. While the database is away (a restart or failover) the
 * task pauses by itself: the first failure of that kind is reported, the next ones are not, and the
 * first run that works again resumes as before.
 */
import { DatabaseUnavailableError } from './storage/hosts.js';

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
  let away = false;
  const stopping = () => stopped;
  const tick = () => {
    if (running) return;
    running = task(stopping)
      .then(
        () => (away = false),
        (err: unknown) => {
          const unavailable = err instanceof DatabaseUnavailableError;
          if (!(unavailable && away)) onError(err);
          away = unavailable;
        },
      )
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
