/** The service's /metrics samples, by name with labels as exposed (`name` or `name{label="x"}`). */
export async function metricsOf(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return new Map([...text.matchAll(/^(\w+(?:\{[^}]*\})?) (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

/** What the samples grew by between two reads (counters). */
export function grown(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
}
