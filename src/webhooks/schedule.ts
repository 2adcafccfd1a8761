/**
 * The retry schedule of a webhook delivery: the wait after failed attempt n is base * 2^(n-1),
 * at most 720 * base and never more than an hour, shortened by a random jitter of up to 20 %.
 * With the default base (5 s): 5 s, 10 s, 20 s ... 42.7 min, then hourly; MAX_ATTEMPTS makes that
 * at least 24 h even when every wait drew the largest jitter. A smaller base shrinks the whole
 * schedule in proportion (tests use a few milliseconds).
 */
const HOUR_MS = 3_600_000;
/** the cap of a wait, in bases: 720 * 5 s = 1 h */
const CAP_IN_BASES = 720;
const JITTER = 0.2;

/**
 * attempts in all (the first and the retries): 5 s ... 2560 s are 5115 s, then 29 hourly waits; 0.8 * 109,515 s > 24 h
 */
export const MAX_ATTEMPTS = 40;

export function retryDelayMs(failedAttempts: number, baseMs: number, random: () => number = Math.random): number {
  const cap = Math.min(HOUR_MS, CAP_IN_BASES * baseMs);
  const wait = Math.min(baseMs * 2 ** Math.max(0, failedAttempts - 1), cap);
  return Math.round(wait * (1 - JITTER * random()));
}
