import type { Config } from './config.js';
import type { ListingState } from './listing/state.js';
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
  /** the A1 listing's cache and bookkeeping for this database */
  listing: ListingState;
}
