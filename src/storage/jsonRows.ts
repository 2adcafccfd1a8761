/**
 * Rows that come back as JSON (row_to_json in a sub-select, or a database function's jsonb result)
 * carry timestamps as text; these turn the known timestamp columns back into Dates, as a plain
 * row of either driver has them.
 */
const TIMESTAMP_COLUMNS = [
  'start_at',
  'end_at',
  'blocked_from',
  'blocked_until',
  'hold_until',
  'created_at',
  'updated_at',
];

export function reviveRow<T>(json: Record<string, unknown>): T {
  for (const key of TIMESTAMP_COLUMNS) {
    const v = json[key];
    if (typeof v === 'string') json[key] = new Date(v);
  }
  return json as T;
}

export function reviveOptionalRow<T>(json: Record<string, unknown> | null | undefined): T | null {
  return json ? reviveRow<T>(json) : null;
}
