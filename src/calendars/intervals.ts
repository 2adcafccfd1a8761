/** A busy interval [startMs, endMs) in epoch milliseconds. */
export interface Interval {
  startMs: number;
  endMs: number;
}

/** The intervals clipped to [fromMs, toMs), empty ones dropped, sorted, overlapping or touching ones merged. */
export function mergeIntervals(intervals: Interval[], fromMs: number, toMs: number): Interval[] {
  const clipped = intervals
    .map(({ startMs, endMs }) => ({ startMs: Math.max(startMs, fromMs), endMs: Math.min(endMs, toMs) }))
    .filter((i) => i.endMs > i.startMs)
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const out: Interval[] = [];
  for (const i of clipped) {
    const last = out[out.length - 1];
    if (last && i.startMs <= last.endMs) last.endMs = Math.max(last.endMs, i.endMs);
    else out.push({ ...i });
  }
  return out;
}
