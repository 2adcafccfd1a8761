import type { Config } from './config.js';
import type { Db } from './storage/db.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What domain services need: storage, configuration and time. No framework. */
export interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
}
