import type { Deps } from '../context.js';

/** What reading and writing calendars needs; the jobs add their logger. */
export type CalendarDeps = Pick<Deps, 'db' | 'config' | 'clock'> & { log?: { warn(obj: object, msg: string): void } };
