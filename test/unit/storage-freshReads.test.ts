import { describe, expect, it, vi } from 'vitest';
import { FreshReads } from '../../src/listing/freshReads.js';

/** A load whose answers the test releases by hand; it records when each load started. */
function manualLoads() {
  const started: { n: number; resolve: (v: number) => void; reject: (e: Error) => void; readDone: () => void }[] = [];
  const load = (readDone: () => void) =>
    new Promise<number>((resolve, reject) => {
      started.push({ n: started.length + 1, resolve, reject, readDone });
    });
  return { started, load };
}

/** Lets the event loop turn twice: a read queued now starts on the first turn after its caller's microtasks. */
const turn = async () => {
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
};

describe('FreshReads', () => {
  it('tells each load how many callers share it', async () => {
    const reads = new FreshReads<number>();
    const callers: number[] = [];
    const load = (readDone: () => void, n: number) => {
      callers.push(n);
      readDone();
      return Promise.resolve(n);
    };
    expect(await Promise.all([reads.read('k', load), reads.read('k', load), reads.read('k', load)])).toEqual([3, 3, 3]);
    expect(await reads.read('k', load)).toBe(1);
    expect(callers).toEqual([3, 1]);
  });

  it('never hands a caller a read that started before it asked: late callers share the next read', async () => {
    const reads = new FreshReads<number>();
    const { started, load } = manualLoads();
    const first = reads.read('k', load);
    await turn();
    expect(started).toHaveLength(1);
    // two callers arrive while read 1 is in flight: they wait for one new read, not for read 1
    const second = reads.read('k', load);
    const third = reads.read('k', load);
    expect(started).toHaveLength(1);
    started[0].resolve(1);
    expect(await first).toBe(1);
    await turn();
    expect(started).toHaveLength(2);
    started[1].resolve(2);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
  });

  it("starts on the event loop's next turn when nothing is in flight, shared by that turn's callers", async () => {
    const reads = new FreshReads<number>();
    const { started, load } = manualLoads();
    const burst = [reads.read('k', load), reads.read('k', load), reads.read('k', load)];
    expect(started).toHaveLength(0);
    await turn();
    expect(started).toHaveLength(1);
    started[0].resolve(7);
    expect(await Promise.all(burst)).toEqual([7, 7, 7]);
  });

  it('with a start delay, shares the read with callers arriving before it starts', async () => {
    // the delay's timer is faked: a busy machine cannot let it run out between the two callers
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const reads = new FreshReads<number>();
      const { started, load } = manualLoads();
      const first = reads.read('k', load, 30);
      await turn();
      expect(started).toHaveLength(0); // waiting for the rest of the burst
      await vi.advanceTimersByTimeAsync(29);
      await turn();
      expect(started).toHaveLength(0); // still within the delay
      const late = reads.read('k', load, 30);
      await vi.advanceTimersByTimeAsync(1);
      await turn();
      expect(started).toHaveLength(1);
      started[0].resolve(5);
      expect([await first, await late]).toEqual([5, 5]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps keys apart', async () => {
    const reads = new FreshReads<number>();
    const { started, load } = manualLoads();
    const a = reads.read('a', load);
    const b = reads.read('b', load);
    await turn();
    expect(started).toHaveLength(2);
    started[0].resolve(10);
    started[1].resolve(20);
    expect([await a, await b]).toEqual([10, 20]);
    const again = reads.read('a', load);
    await turn();
    expect(started).toHaveLength(3);
    started[2].resolve(11);
    expect(await again).toBe(11);
  });

  it('gives a failed read to everyone who shared it, and the next caller a fresh read', async () => {
    const reads = new FreshReads<number>();
    const { started, load } = manualLoads();
    const first = reads.read('k', load);
    await turn();
    const joined = reads.read('k', load);
    started[0].reject(new Error('first failed'));
    await expect(first).rejects.toThrow('first failed');
    await turn();
    started[1].reject(new Error('second failed'));
    await expect(joined).rejects.toThrow('second failed');
    const later = reads.read('k', load);
    await turn();
    expect(started).toHaveLength(3);
    started[2].resolve(3);
    expect(await later).toBe(3);
  });

  it('starts the next read once the one in flight says its reading is done, before it settles', async () => {
    const reads = new FreshReads<number>();
    const { started, load } = manualLoads();
    const first = reads.read('k', load);
    await turn();
    const second = reads.read('k', load);
    await turn();
    expect(started).toHaveLength(1); // still reading: the second waits
    started[0].readDone(); // read, still computing its answer
    await turn();
    expect(started).toHaveLength(2);
    const third = reads.read('k', load); // arrived after the second started: not handed its answer
    started[1].resolve(2);
    started[0].resolve(1);
    expect([await first, await second]).toEqual([1, 2]);
    await turn();
    expect(started).toHaveLength(3);
    started[2].resolve(3);
    expect(await third).toBe(3);
  });
});
