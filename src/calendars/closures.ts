/**
 * Closures (DESIGN.md §7.6): a partner closes a provider, or one of its resources, for a while
 * (a holiday, a training day). A closure is a row of busy_times (source 'closure', source_id = id):
 * it blocks at once, as every busy time does, and appointments already inside it stay (the 201
 * names them in conflictingAppointments, for the partner to decide).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { appointmentTakesTimeSql, liveParticipationSql } from '../scheduling/capacity.js';
import { requireResource } from '../scheduling/repo.js';
import { formatInstant, parseInstant } from '../scheduling/time.js';
import type { Queryable } from '../storage/db.js';

/** A closure may last at most this long. */
export const MAX_CLOSURE_DAYS = 400;
const DAY_MS = 86_400_000;
/** Whether an id in a path can be a row's id at all (anything else is a 404 without a query). */
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export interface ClosureInput {
  resourceReference?: string | null;
  start: string;
  end: string;
  reason?: string | null;
}

export interface ClosureView {
  id: string;
  resourceReference: string | null;
  start: string;
  end: string;
  reason: string | null;
}

interface ClosureRow {
  id: string;
  resource_reference: string | null;
  start_at: Date;
  end_at: Date;
  reason: string | null;
}

const view =
  (zone: string) =>
  (r: ClosureRow): ClosureView => ({
    id: r.id,
    resourceReference: r.resource_reference,
    start: formatInstant(r.start_at, zone),
    end: formatInstant(r.end_at, zone),
    reason: r.reason,
  });

const CLOSURE_COLUMNS = `b.id, (SELECT reference FROM resources WHERE id = b.resource_id) AS resource_reference,
                         b.start_at, b.end_at, b.reason`;

export async function createClosure(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: ClosureInput,
): Promise<ClosureView & { conflictingAppointments: string[] }> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const start = parseInstant(input.start, zone, 'body.start');
    const end = parseInstant(input.end, zone, 'body.end');
    if (end <= start) throw invalid('body.end must be after body.start');
    if (end.getTime() - start.getTime() > MAX_CLOSURE_DAYS * DAY_MS)
      throw invalid(`a closure lasts at most ${MAX_CLOSURE_DAYS} days: body.end is too far after body.start`);
    const resource =
      input.resourceReference == null ? null : await requireResource(tx, provider.id, input.resourceReference);
    const id = randomUUID();
    const [row] = await tx.query<ClosureRow>(
      `INSERT INTO busy_times AS b (id, crm_id, provider_id, resource_id, source, source_id, start_at, end_at, reason)
       VALUES ($1, $2, $3, $4, 'closure', $1, $5, $6, $7) RETURNING ${CLOSURE_COLUMNS}`,
      [id, crmId, provider.id, resource?.id ?? null, start, end, input.reason ?? null],
    );
    return { ...view(zone)(row), conflictingAppointments: await appointmentsInside(tx, id, deps.clock.now()) };
  });
}

/** The references of the live appointments the busy time meets (buffers counted), by start. */
async function appointmentsInside(db: Queryable, busyId: string, now: Date): Promise<string[]> {
  const livePlaceSql = `EXISTS (SELECT 1 FROM participations p
                                  WHERE p.appointment_id = a.id AND ${liveParticipationSql('$2', 'p')})`;
  const rows = await db.query<{ reference: string }>(
    `SELECT a.reference FROM busy_times b
       JOIN resources r ON r.provider_id = b.provider_id AND (b.resource_id IS NULL OR r.id = b.resource_id)
       JOIN appointments a ON a.resource_id = r.id
         AND tstzrange(a.blocked_from, a.blocked_until) && tstzrange(b.start_at, b.end_at)
      WHERE b.id = $1
        AND ${appointmentTakesTimeSql('a', livePlaceSql)}
      ORDER BY a.start_at, a.reference`,
    [busyId, now],
  );
  return rows.map((r) => r.reference);
}

/** The provider's closures ending after `from` (default now) and starting before `to` (if given). */
export async function listClosures(
  deps: Deps,
  crmId: string,
  providerRef: string,
  range: { from?: string; to?: string },
): Promise<ClosureView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const zone = provider.time_zone;
  const from = range.from === undefined ? deps.clock.now() : parseInstant(range.from, zone, 'query.from');
  const to = range.to === undefined ? null : parseInstant(range.to, zone, 'query.to');
  if (to && to <= from) throw invalid('query.to must be after query.from');
  const rows = await deps.db.query<ClosureRow>(
    `SELECT ${CLOSURE_COLUMNS} FROM busy_times b
      WHERE b.provider_id = $1 AND b.source = 'closure' AND b.end_at > $2
        AND ($3::timestamptz IS NULL OR b.start_at < $3)
      ORDER BY b.start_at, b.id`,
    [provider.id, from, to],
  );
  return rows.map(view(zone));
}

export async function deleteClosure(deps: Deps, crmId: string, providerRef: string, id: string): Promise<void> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const deleted =
    isUuid(id) &&
    (
      await deps.db.query(
        `DELETE FROM busy_times WHERE id = $1 AND provider_id = $2 AND source = 'closure' RETURNING id`,
        [id, provider.id],
      )
    ).length > 0;
  if (!deleted) throw notFound(`no closure found with id ${id}`);
}
