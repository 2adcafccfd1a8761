import { describe, expect, it } from 'vitest';
import { runEvery } from '../../src/periodic.js';

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
