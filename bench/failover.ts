/**
 * Bench phase FAILOVER (issue 56, DESIGN.md §7.13): consumers book through a failover. Two private
 * PostgreSQL clusters (a primary and its synchronous standby, test/helpers/postgresPair.ts), the
 * service as its own process on both hosts (`dist/main.js`, every worker on); the primary is killed
 * -9 while consumers book, the standby promoted a second later. Prints the bookings acknowledged,
 * those lost (must be 0), the time from the primary's death to the first 201 after it, and the
 * count of 503 answers. Alone: `npm run bench -- FAILOVER`.
 */
import { cpus, loadavg } from 'node:os';
import { runOutage, type OutageFigures } from '../test/helpers/failoverLoad.js';
import { pgBinDir, startPostgresPair } from '../test/helpers/postgresPair.js';

/** seconds a failover manager takes to notice and promote, simulated */
export const FAILOVER_PROMOTE_AFTER_MS = 1_000;

export async function failoverRun(log: (line: string) => void = () => undefined): Promise<OutageFigures | null> {
  if (!pgBinDir()) return null;
  const pair = await startPostgresPair();
  try {
    return await runOutage({
      databaseUrl: pair.url,
      checkUrl: pair.standby.url,
      breakDb: () => pair.primary.crash(),
      healDb: async () => {
        await new Promise((r) => setTimeout(r, FAILOVER_PROMOTE_AFTER_MS));
        await pair.promoteStandby();
      },
      log,
    });
  } finally {
    await pair.stop();
  }
}

export function printFailover(f: OutageFigures | null): void {
  if (!f) {
    console.log('FAILOVER: skipped (no PostgreSQL server binaries under /usr/lib/postgresql)');
    return;
  }
  const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(
    `FAILOVER (kill -9 of the primary, standby promoted after ${FAILOVER_PROMOTE_AFTER_MS} ms; ` +
      `load ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`,
  );
  console.log(`  bookings acknowledged (201):          ${f.acknowledged}`);
  console.log(`  bookings lost:                        ${f.lost} (target 0: ${met(f.lost === 0)})`);
  console.log(`  primary's death to the first 201:     ${f.msToFirst201} ms`);
  const recovered = met(f.msFromHealTo201 >= 0 && f.msFromHealTo201 < 10_000);
  console.log(`  promotion to the first 201:           ${f.msFromHealTo201} ms (target < 10000: ${recovered})`);
  console.log(`  answers 503:                          ${f.answers503}`);
  console.log(`  answers 500 (other 5xx):              ${f.answers500} (target 0: ${met(f.answers500 === 0)})`);
  console.log(
    `  503 without Retry-After or the body:  ${f.undocumented503} (target 0: ${met(f.undocumented503 === 0)})`,
  );
  const quick = met(f.longestRequestMs < 10_000);
  console.log(`  longest request:                      ${f.longestRequestMs} ms (target < 10000: ${quick})`);
  console.log(`  A3 answered 503, retried with the key: ${f.retries.length} (${JSON.stringify(f.retries)})`);
  console.log(`  acknowledged without their mail:      ${f.mailsMissing}`);
}
