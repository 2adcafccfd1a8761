/**
 * A1's read, in one statement (one round trip, one snapshot): the references resolved, the listed
 * resources' listing versions, and, unless those equal the versions the caller already has a
 * listing for, what changed:
 * - when the caller has the data of an earlier read and every change committed since that read's
 *   snapshot names an appointment (migration 012), only those appointments (`changes`);
 * - else the data: each resource with its products and contact, the product prdRef names, the
 *   offering timeslots reaching into the window, the live appointments with their live
 *   participation counts, and the busy times (closures, subscribed calendars) near the window.
 * Instants travel as epoch milliseconds inside compact JSON arrays, so no row object or Date is
 * built per slot.
 */
import { notFound } from '../errors.js';
import { contactFromRow, resourceContactJsonSql, type ContactRow } from '../offerings/contact.js';
import type { ChannelKey } from '../offerings/channels.js';
import { appointmentTakesTimeSql, liveParticipationSql } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { viewOf, type ResourceView } from '../booking/bookableView.js';
import { productLookupJsonSql, productsJsonSql, type ProductRow } from '../booking/publicProducts.js';
import {
  PUBLIC_RESOURCE_COLUMNS,
  PUBLIC_RESOURCE_FROM,
  refsValuesSql,
  resolvedIds,
  type AddParam,
  type PublicResource,
} from '../booking/publicResources.js';
import type { EngineAppointment, EngineBusy, EngineTimeslot } from '../booking/slotEngine.js';

/** An engine appointment plus what the public item shows about its product. */
export interface LoadedAppointment extends EngineAppointment {
  productName: string | null;
  productExclusive: boolean;
  /** when the earliest live hold on it expires (its live count drops then) */
  nextHoldExpiryMs: number | null;
}

export interface ListingData {
  /** the listed resources that are not archived, in the order asked, channel applied to their products */
  views: Map<string, ResourceView>;
  /** the product prdRef names */
  prd: ProductRow | null;
  timeslots: EngineTimeslot[];
  appointments: LoadedAppointment[];
  busy: EngineBusy[];
}

/** What the caller has of an earlier read of the same resources. */
export interface KnownListing {
  /** the versions of the listing it has (ListingRead.versions): nothing is read while they hold */
  versions: string | null;
  /** with the data that read gave (ListingRead.snapshot and .total): only the changes since are read */
  since: { snapshot: string; total: string } | null;
}

export interface ListingReadQuery {
  refs: { ref: string; field: string }[];
  channelKey: ChannelKey;
  prdRef?: string;
  nowMs: number;
  /** the data reaches this far (timeslots starting before it, appointments blocking before it) */
  untilMs: number;
  known: KnownListing | null;
}

/** The appointments changed since the known snapshot: their ids, and those of them still listed, read now. */
export interface ListingChanges {
  ids: string[];
  appointments: LoadedAppointment[];
}

export interface ListingRead {
  /** the resources the references name, in their order, duplicates dropped */
  resourceIds: string[];
  /** the resources' listing versions (listing_version.sql) as one opaque text, ids included */
  versions: string;
  /** the sum of those versions, as text (a bigint) */
  total: string;
  /** the statement's snapshot (pg_snapshot as text): the changes after it are the ones it did not see */
  snapshot: string;
  /** null when `versions` equals the known versions, or when only `changes` were read */
  data: ListingData | null;
  /** read instead of the data when the known listing's changes since could be named */
  changes: ListingChanges | null;
}

/** Above this many changes since the known snapshot, reading everything is as cheap. */
const MAX_CHANGES_READ = 200;

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint`;

// [id, start, end, raster, default_capacity]: only offering timeslots (BOOKABLE, accepting, capacity > 0)
type TimeslotTuple = [string, number, number, number, number];
// [id, timeslot_id, product_id, start, end, blocked_from, blocked_until, capacity, accept_bookings, product name,
// exclusive, live, next hold expiry]
type AppointmentTuple = [
  string,
  string | null,
  string | null,
  number,
  number,
  number,
  number,
  number,
  boolean,
  string | null,
  boolean | null,
  number,
  number | null,
];

interface Row extends PublicResource {
  products: ProductRow[];
  contact: ContactRow | null;
  prd: ProductRow | null;
  timeslots: TimeslotTuple[] | null;
  appointments: AppointmentTuple[] | null;
  busy: [number, number][] | null;
}

/**
 * Appointments may block a slot through a product's buffers, so they are read that much further
 * both ways: the largest buffer among the resource's products, plus a day. A resource with booking
 * limits is read a week further still: a listed slot's date and ISO week count every appointment
 * that starts in them (offerings/bookingLimits.ts closedSpans).
 */
const appointmentMargin = (
  resourceId: string,
) => `(SELECT COALESCE(max(COALESCE(pr.lead_time_minutes, 0) + COALESCE(pr.follow_up_time_minutes, 0)), 0)
             * interval '1 minute' + interval '1 day'
           + (SELECT CASE WHEN l.booking_limit_per_day IS NULL AND l.booking_limit_per_week IS NULL
                          THEN interval '0' ELSE interval '7 days' END
                FROM resources l WHERE l.id = ${resourceId})
    FROM resource_products rp JOIN products pr ON pr.id = rp.product_id WHERE rp.resource_id = ${resourceId})`;

/**
 * Appointments `a` of the listing's window, each as an AppointmentTuple: ACTIVE ones, less those the
 * public flow created that no participation holds a place in any more (their time is free, as if
 * they had never been booked: release_emptied_appointment.sql); `wrap` may
 * wrap the tuple. `resourceId` names the resource for the margin: outside `a`, the window bounds
 * are values for the index scan.
 */
const appointmentsJsonSql = (
  where: string,
  resourceId: string,
  now: string,
  until: string,
  wrap = (tuple: string) => tuple,
) => `
         (SELECT json_agg(${wrap(`json_build_array(a.id, a.timeslot_id, a.product_id, ${ms('a.start_at')},
                    ${ms('a.end_at')}, ${ms('a.blocked_from')}, ${ms('a.blocked_until')}, a.capacity,
                    a.accept_bookings, COALESCE(a.product_name, pr.name), pr.exclusive, places.live,
                    ${ms('places.next_hold_expiry')})`)})
            FROM appointments a
            LEFT JOIN products pr ON pr.id = a.product_id
            CROSS JOIN LATERAL (
                 SELECT count(*) FILTER (WHERE ${liveParticipationSql(now)}) AS live,
                        min(hold_until) FILTER (WHERE state = 'RESERVED' AND hold_until > ${now}) AS next_hold_expiry
                   FROM participations
                  WHERE appointment_id = a.id AND state IN ('RESERVED', 'REQUESTED', 'BOOKED')) places
           WHERE ${where} AND ${appointmentTakesTimeSql('a', 'places.live > 0')}
             AND a.blocked_until > ${now}::timestamptz - ${appointmentMargin(resourceId)}
             AND a.blocked_from < ${until}::timestamptz + ${appointmentMargin(resourceId)})`;

/** prdRef's product (`prd`: the reference and its placeholder) among the providers of the resources `ids`, or NULL. */
const prdSql = (ids: string, prd: { ref: string; param: string } | null) =>
  prd === null
    ? 'NULL'
    : productLookupJsonSql(prd.ref, prd.param, `ARRAY(SELECT provider_id FROM resources WHERE id = ANY(${ids}))`);

/** The listed resources' rows (Row), `ids` an SQL uuid[] expression; `prd` prdRef and its placeholder, if any. */
const dataSql = (ids: string, now: string, until: string, prd: { ref: string; param: string } | null) => `
  SELECT ${PUBLIC_RESOURCE_COLUMNS},
         ${productsJsonSql('r.id')} AS products,
         CASE WHEN r.contact_channel_type IS NOT NULL THEN ${resourceContactJsonSql('r.id')} END AS contact,
         ${prdSql(ids, prd)} AS prd,
         (SELECT json_agg(json_build_array(t.id, ${ms('t.start_at')}, ${ms('t.end_at')}, t.raster, t.default_capacity))
            FROM timeslots t
           WHERE t.resource_id = r.id AND t.end_at > ${now} AND t.start_at < ${until}
             AND t.state = 'BOOKABLE' AND t.default_accept_bookings AND t.default_capacity > 0) AS timeslots,
         ${appointmentsJsonSql('a.resource_id = r.id', 'r.id', now, until)} AS appointments,
         (SELECT json_agg(json_build_array(${ms('b.start_at')}, ${ms('b.end_at')}) ORDER BY b.start_at)
            FROM busy_times b
           WHERE b.provider_id = r.provider_id AND (b.resource_id IS NULL OR b.resource_id = r.id)
             AND tstzrange(b.start_at, b.end_at)
                 && tstzrange(${now}::timestamptz - ${appointmentMargin('r.id')},
                              ${until}::timestamptz + ${appointmentMargin('r.id')})) AS busy
    ${PUBLIC_RESOURCE_FROM}
   WHERE r.id = ANY(${ids})`;

/** The appointments of the delta's changes (as appointmentsJsonSql's tuples, each after its resource's id). */
const changedAppointmentsSql = (now: string, until: string) =>
  appointmentsJsonSql(
    'a.id IN (SELECT unnest(ids) FROM delta) AND a.resource_id = ANY(current.ids)',
    'a.resource_id',
    now,
    until,
    (tuple) => `json_build_array(a.resource_id, ${tuple})`,
  );

/**
 * The references resolved (`matches`: the ids each matches, at most two), the versions of the
 * resources they name and the statement's snapshot; when those versions differ from the known ones
 * and every reference names exactly one resource, the changes since the known snapshot if they can
 * be named (`delta`: each change names an appointment, and they are all the versions moved by:
 * none was compacted away meanwhile), else the data.
 */
function readSql(q: ListingReadQuery, param: AddParam): string {
  const now = param(new Date(q.nowMs));
  const until = param(new Date(q.untilMs));
  const prd = q.prdRef === undefined ? null : { ref: q.prdRef, param: param(q.prdRef) };
  const known = param(q.known?.versions ?? null);
  const snapshot = param(q.known?.since?.snapshot ?? null);
  const knownTotal = param(q.known?.since?.total ?? null);
  return `
  WITH refs (i, ids) AS (VALUES ${refsValuesSql(q.refs, param)}),
       listed AS (SELECT ids[1] AS id, min(i) AS i, listing_version(ids[1]) AS version
                    FROM refs WHERE cardinality(ids) = 1 GROUP BY ids[1]),
       current AS (SELECT array_agg(id ORDER BY i) AS ids, string_agg(id || '=' || version, ',' ORDER BY i) AS versions,
                          sum(version) AS total
                     FROM listed),
       wanted AS (SELECT current.versions IS DISTINCT FROM ${known}::text
                         AND NOT EXISTS (SELECT 1 FROM refs WHERE cardinality(ids) <> 1) AS yes
                    FROM current),
       delta AS (SELECT count(*) AS n, count(*) FILTER (WHERE c.appointment_id IS NULL) AS unnamed,
                        array_agg(DISTINCT c.appointment_id) AS ids
                   FROM listed JOIN listing_changes c ON c.resource_id = listed.id
                  WHERE ${snapshot}::text IS NOT NULL AND NOT pg_visible_in_snapshot(c.xid, ${snapshot}::pg_snapshot)),
       incremental AS (SELECT COALESCE(delta.unnamed = 0 AND delta.n <= ${MAX_CHANGES_READ}
                                       AND current.total - ${knownTotal}::numeric = delta.n, false) AS yes
                            FROM current, delta)
  SELECT (SELECT json_agg(ids ORDER BY i) FROM refs) AS matches, current.versions, current.total::text AS total,
         pg_current_snapshot()::text AS snapshot,
         CASE WHEN (SELECT yes FROM wanted) THEN CASE WHEN (SELECT yes FROM incremental)
              THEN json_build_object('ids', (SELECT ids FROM delta),
                                     'appointments', ${changedAppointmentsSql(now, until)}) END END AS changes,
         CASE WHEN (SELECT yes FROM wanted) THEN CASE WHEN NOT (SELECT yes FROM incremental)
              THEN (SELECT json_agg(d) FROM (${dataSql('current.ids', now, until, prd)}) d) END END AS data
    FROM current`;
}

/**
 * The versions alone, the references resolved as readListing resolves them: what an answer served
 * from the cache is checked against. A statement this small costs PostgreSQL a fraction of
 * readListing's, whose planning alone outweighs its execution when nothing changed. A UUID
 * reference is not looked up: the version of its id moved if the resource was deleted since
 * (listing_touch_resource.sql), and then readListing answers 404.
 */
function versionsSql(refs: { ref: string }[], param: AddParam): string {
  return `
  WITH refs (i, ids) AS (VALUES ${refsValuesSql(refs, param, true)}),
       listed AS (SELECT ids[1] AS id, min(i) AS i, listing_version(ids[1]) AS version
                    FROM refs WHERE cardinality(ids) = 1 GROUP BY ids[1])
  SELECT (SELECT json_agg(ids ORDER BY i) FROM refs) AS matches,
         (SELECT string_agg(id || '=' || version, ',' ORDER BY i) FROM listed) AS versions`;
}

/**
 * The resources' versions (as ListingRead.versions) and the ids the references name; 404 or 400 as readListing for a
 * reference it looks up.
 */
export async function readVersions(
  db: Queryable,
  refs: { ref: string; field: string }[],
): Promise<{ resourceIds: string[]; versions: string }> {
  const params: unknown[] = [];
  const [row] = await db.query<{ matches: string[][]; versions: string }>(
    versionsSql(refs, (value) => `$${params.push(value)}`),
    params,
  );
  return { resourceIds: resolvedIds(refs, row.matches), versions: row.versions };
}

function timeslotOf(
  resourceId: string,
  [id, startMs, endMs, rasterMin, defaultCapacity]: TimeslotTuple,
): EngineTimeslot {
  return { id, resourceId, startMs, endMs, rasterMin, defaultCapacity, defaultAcceptBookings: true, state: 'BOOKABLE' };
}

function appointmentOf(resourceId: string, a: AppointmentTuple): LoadedAppointment {
  const [
    id,
    timeslotId,
    productId,
    startMs,
    endMs,
    blockedFromMs,
    blockedUntilMs,
    capacity,
    acceptBookings,
    productName,
    exclusive,
    live,
    nextHoldExpiryMs,
  ] = a;
  return {
    id,
    resourceId,
    timeslotId,
    productId,
    startMs,
    endMs,
    blockedFromMs,
    blockedUntilMs,
    capacity,
    acceptBookings,
    live,
    state: 'ACTIVE',
    archived: false,
    productName,
    productExclusive: exclusive === true,
    nextHoldExpiryMs,
  };
}

/**
 * A1's read; 404 or 400 naming the field of a reference that names no single resource, 404 naming
 * query.prdRef when the data was read and prdRef names no product of the resources' providers.
 */
export async function readListing(db: Queryable, q: ListingReadQuery): Promise<ListingRead> {
  const params: unknown[] = [];
  const [row] = await db.query<{
    matches: string[][];
    versions: string;
    total: string;
    snapshot: string;
    data: Row[] | null;
    changes: ChangesJson | null;
  }>(
    readSql(q, (value) => `$${params.push(value)}`),
    params,
  );
  const resourceIds = resolvedIds(q.refs, row.matches);
  return {
    resourceIds,
    versions: row.versions,
    total: row.total,
    snapshot: row.snapshot,
    data: row.data && listingData(row.data, resourceIds, q),
    changes: row.changes && {
      ids: row.changes.ids ?? [],
      appointments: (row.changes.appointments ?? []).map(([resourceId, a]) => appointmentOf(resourceId, a)),
    },
  };
}

interface ChangesJson {
  ids: string[] | null;
  appointments: [string, AppointmentTuple][] | null;
}

/** `data` with the changed appointments replaced by what was read of them now (those no longer listed gone). */
export function withChanges(data: ListingData, changes: ListingChanges): ListingData {
  const changed = new Set(changes.ids);
  const now = new Map<string, LoadedAppointment>();
  for (const a of changes.appointments) if (data.views.has(a.resourceId)) now.set(a.id, a);
  // an appointment still listed keeps its place (a booking changes its count, not its times), so
  // the data stays in the order it was loaded in and the slot engine finds it sorted
  const appointments: LoadedAppointment[] = [];
  for (const a of data.appointments) {
    if (!changed.has(a.id)) appointments.push(a);
    else {
      const current = now.get(a.id);
      if (current) appointments.push(current);
      now.delete(a.id);
    }
  }
  for (const a of now.values()) appointments.push(a);
  return { ...data, appointments };
}

function listingData(rows: Row[], resourceIds: string[], q: ListingReadQuery): ListingData {
  const prd = rows.find((r) => r.prd)?.prd ?? null;
  if (q.prdRef !== undefined && !prd) throw notFound(`no product found for query.prdRef ${q.prdRef}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const data: ListingData = { views: new Map(), prd, timeslots: [], appointments: [], busy: [] };
  for (const id of resourceIds) {
    const row = byId.get(id);
    if (!row || row.archived) continue; // archived resources list nothing
    const { products, contact, prd: _prd, timeslots, appointments, busy, ...resource } = row;
    data.views.set(id, viewOf(resource, products, q.channelKey, contactFromRow(contact)));
    for (const t of timeslots ?? []) data.timeslots.push(timeslotOf(id, t));
    for (const a of appointments ?? []) data.appointments.push(appointmentOf(id, a));
    for (const [startMs, endMs] of busy ?? []) data.busy.push({ resourceId: id, startMs, endMs });
  }
  return data;
}
