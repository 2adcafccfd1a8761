/**
 * Seeds of the property tests (fast-check): PROPERTY_SEED replays a run; without it each run draws
 * a seed and prints it, so any failure seen once (here or in CI) can be replayed exactly:
 *   PROPERTY_SEED=<seed> npx vitest run <file>
 * fast-check also reports the counterexample's seed and path when a property fails.
 * PROPERTY_MAX_RUNS caps every property's number of runs (npm run mutate runs each surviving
 * candidate against the unit tests, and 3000 runs per mutant would take hours on two cores).
 */
import type { Parameters } from 'fast-check';

/** The seed this process uses: PROPERTY_SEED, else a random 31-bit integer (drawn once per file). */
export const PROPERTY_SEED: number = (() => {
  const given = process.env.PROPERTY_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer, got ${JSON.stringify(given)}`);
    return seed;
  }
  return Math.floor(Math.random() * 0x7fffffff);
})();

/** fc.assert's parameters with the seed, printing it under the property's name. */
export function seeded<T>(name: string, params: Parameters<T> = {}): Parameters<T> {
  console.info(
    `[property] ${name}: seed ${PROPERTY_SEED}${process.env.PROPERTY_SEED ? ' (from PROPERTY_SEED)' : ''}; ` +
      `replay with PROPERTY_SEED=${PROPERTY_SEED}`,
  );
  return {
    ...params,
    ...(params.numRuns === undefined ? {} : { numRuns: propertyRuns(params.numRuns) }),
    seed: PROPERTY_SEED,
  };
}

/** `n` runs, or PROPERTY_MAX_RUNS when that is smaller; thresholds that scale with the runs use this too. */
export function propertyRuns(n: number): number {
  const max = Number(process.env.PROPERTY_MAX_RUNS);
  return Number.isSafeInteger(max) && max > 0 ? Math.min(n, max) : n;
}
