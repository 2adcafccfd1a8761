import { describe, expect, it } from 'vitest';
import { runEvery } from '../../src/periodic.js';
import { DatabaseUnavailableError } from '../../src/storage/hosts.js';

describe('runEvery', () => {
  it('stop() waits for the item in hand, no more: a task sees stopping() between its items', async () => {
    const done: number[] = [];
    let startedRun!: () => void;
    const running = new Promise<void>((r) => (startedRun = r));
    const job = runEvery(
      5,
      async (stopping) => {
        startedRun();
        for (let item = 0; item < 100 && !stopping(); item++) {
          await new Promise((r) => setTimeout(r, 20));
          done.push(item);
        }
      },
      (err) => {
        throw err;
      },
    );
    await running;
    await new Promise((r) => setTimeout(r, 50));
    const before = done.length;
    await job.stop();
    expect(done.length).toBeGreaterThanOrEqual(before);
    expect(done.length).toBeLessThanOrEqual(before + 1);
    const after = done.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(done.length).toBe(after); // no new run after stop
  });
});

describe('runEvery while the database is away', () => {
  it('reports the first unavailability once, keeps trying, and reports again after it worked', async () => {
    const outcomes = ['away', 'away', 'away', 'ok', 'away', 'away'];
    const reported: string[] = [];
    let runs = 0;
    const job = runEvery(
      2,
      async () => {
        const outcome = outcomes[runs++];
        if (outcome === 'away') throw new DatabaseUnavailableError(`away ${runs}`);
      },
      (err) => reported.push((err as Error).message),
    );
    await expect.poll(() => runs, { timeout: 2000 }).toBeGreaterThanOrEqual(outcomes.length);
    await job.stop();
    expect(reported).toEqual(['away 1', 'away 5']);
  });
});
