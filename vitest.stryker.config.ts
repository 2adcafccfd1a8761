import { defineConfig } from 'vitest/config';

/**
 * The unit tests of the pure core that `npm run mutate` (StrykerJS, stryker.config.json) runs
 * against each mutant: no database, no build, no global setup. Keep this list in step with
 * stryker.config.json's `mutate`.
 */
export default defineConfig({
  test: {
    name: 'mutation',
    include: [
      'test/unit/slotEngine.test.ts',
      'test/unit/slotEngine.property.test.ts',
      'test/unit/datePattern.test.ts',
      'test/unit/scheduling-time.test.ts',
      'test/unit/scheduling-time-edges.test.ts',
      'test/unit/bookingWindow.test.ts',
      'test/unit/bookingLimits.test.ts',
      'test/unit/calendars-busy.test.ts',
      'test/unit/calendars-busy-property.test.ts',
    ],
    testTimeout: 60_000,
    // one worker reused from run to run: Stryker runs these files once per mutant, and starting a
    // fresh worker (and importing luxon) each time was most of the time on two busy cores
    isolate: false,
  },
});
