/**
 * Busy times (DESIGN.md §7.6): every source (closures, subscribed calendars) writes rows of
 * busy_times; A1 (listing/bookablesLoader.ts), claim_place (busy_at.sql) and this module read them.
 * Summaries never leave the service: a busy time is shown by its source, source id and times only.
 */
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { requireResource } from '../scheduling/repo.js';
import { formatInstant, parseInstant } from '../scheduling/time.js';
import type { Queryable } from '../storage/db.js';

const DAY_MS = 86_400_000;
/** GET busy-times without `to`: this many days from `from`; with it, at most MAX_RANGE_DAYS. */
const DEFAULT_RANGE_DAYS = 31;
export const MAX_RANGE_DAYS = 400;

export type BusySource = 'closure' | 'subscription';

/** A busy time as the partner API shows it. */
export interface BusyTimeView {
  start: string;
  end: string;
  source: BusySource;
  sourceId: string;
}

interface BusyRow {
  source: BusySource;
  source_id: string;
  start_at: Date;
  end_at: Date;
}

const view =
  (zone: string) =>
  (r: BusyRow): BusyTimeView => ({
    start: formatInstant(r.start_at, zone),
    end: formatInstant(r.end_at, zone),
    source: r.source,
    sourceId: r.source_id,
  });

/** GET busy-times: the provider's busy times in [from, to), of one resource or of all. */
export async function listBusyTimes(
  deps: Deps,
  crmId: string,
  providerRef: string,
  q: { resourceReference?: string; from?: string; to?: string },
): Promise<BusyTimeView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const zone = provider.time_zone;
  const resource =
    q.resourceReference === undefined ? null : await requireResource(deps.db, provider.id, q.resourceReference);
  const from = q.from === undefined ? deps.clock.now() : parseInstant(q.from, zone, 'query.from');
  const to =
    q.to === undefined ? new Date(from.getTime() + DEFAULT_RANGE_DAYS * DAY_MS) : parseInstant(q.to, zone, 'query.to');
  if (to <= from) throw invalid('query.to must be after query.from');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw invalid(`query.to must be at most ${MAX_RANGE_DAYS} days after query.from`);
  return busyTimesOf(deps.db, provider.id, resource?.id ?? null, from, to, zone);
}

/** The provider's busy times in [from, until), of one resource (its own and the provider-wide ones) or of all. */
export async function busyTimesOf(
  db: Queryable,
  providerId: string,
  resourceId: string | null,
  from: Date,
  until: Date,
  zone: string,
): Promise<BusyTimeView[]> {
  const rows = await db.query<BusyRow>(
    `SELECT source, source_id, start_at, end_at FROM busy_times b
      WHERE b.provider_id = $1 AND ($2::uuid IS NULL OR b.resource_id IS NULL OR b.resource_id = $2)
        AND tstzrange(b.start_at, b.end_at) && tstzrange($3, $4)
      ORDER BY b.start_at, b.end_at, b.source_id`,
    [providerId, resourceId, from, until],
  );
  return rows.map(view(zone));
}

/**
 * The busy times the provider's appointments with these references meet, buffers counted (D6 and
 * D9 answer them in busyOverlaps: the partner is not refused, but told). Each busy time once.
 */
export async function busyOverlapsOf(
  db: Queryable,
  crmId: string,
  providerRef: string,
  appointmentRefs: string[],
): Promise<BusyTimeView[]> {
  if (appointmentRefs.length === 0) return [];
  const rows = await db.query<BusyRow & { time_zone: string }>(
    `SELECT DISTINCT b.source, b.source_id, b.start_at, b.end_at, pv.time_zone
       FROM providers pv
       JOIN appointments a ON a.provider_id = pv.id AND a.reference = ANY($3::text[])
       JOIN busy_times b ON b.provider_id = pv.id AND (b.resource_id IS NULL OR b.resource_id = a.resource_id)
                        AND tstzrange(b.start_at, b.end_at) && tstzrange(a.blocked_from, a.blocked_until)
      WHERE pv.crm_id = $1 AND pv.reference = $2
      ORDER BY b.start_at, b.end_at, b.source_id`,
    [crmId, providerRef, appointmentRefs],
  );
  return rows.map((r) => view(r.time_zone)(r));
}
