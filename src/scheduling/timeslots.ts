/** Timeslots (availabilities) of a provider's resources: D1-D4. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import { addressParam, normalizeAddress, type AddressInput, type StoredAddress } from './address.js';
import * as repo from './repo.js';
import { assertEndAfterStart, formatInstant, nowRoundedUp, parseInstant } from './time.js';
import { loadAppointmentViews, type AppointmentView } from './views.js';

export type TimeslotState = 'CREATED' | 'BOOKABLE';

export interface TimeslotInput {
  reference?: string;
  resourceReference: string;
  start?: string;
  end: string;
  raster: number;
  defaultCapacity: number;
  defaultAcceptBookings: boolean;
  state: TimeslotState;
  address?: AddressInput | string;
}

export type TimeslotUpdate = Partial<Omit<TimeslotInput, 'reference' | 'address'>> & {
  address?: AddressInput | string | null;
};

export interface TimeslotView {
  reference: string;
  uuid: string;
  resourceReference: string;
  start: string;
  end: string;
  raster: number;
  defaultCapacity: number;
  defaultAcceptBookings: boolean;
  state: TimeslotState;
  address: StoredAddress | null;
  /** the availability rule that made it; null for a one-off timeslot (D1) */
  ruleReference: string | null;
}

export function timeslotView(row: repo.TimeslotRow, zone: string): TimeslotView {
  return {
    reference: row.reference,
    uuid: row.id,
    resourceReference: row.resource_reference,
    start: formatInstant(row.start_at, zone),
    end: formatInstant(row.end_at, zone),
    raster: row.raster,
    defaultCapacity: row.default_capacity,
    defaultAcceptBookings: row.default_accept_bookings,
    state: row.state,
    address: (row.address as StoredAddress | null) ?? null,
    ruleReference: row.rule_reference,
  };
}

function assertOrder(start: Date, end: Date, field: string): void {
  if (end.getTime() <= start.getTime()) throw invalid(`${field}.end must be after ${field}.start`);
}

function duplicateReference(err: unknown, reference: string): never {
  if (sqlState(err) === '23505' && constraintName(err) === 'timeslots_provider_id_reference_key') {
    throw conflict(`a timeslot with reference ${reference} already exists`);
  }
  throw err;
}

/** A rule's timeslots start at distinct instants (migration 024): D3 cannot move one onto another's. */
function sameStartOfRule(err: unknown, reference: string): never {
  if (sqlState(err) === '23505' && constraintName(err) === 'timeslots_rule_start_key') {
    throw conflict(`timeslot ${reference} cannot start then: another timeslot of its availability rule starts then`);
  }
  throw err;
}

/** D1: all or nothing. A missing reference becomes the timeslot's uuid; a missing start is now (next full minute). */
export async function createTimeslots(
  deps: Deps,
  crmId: string,
  providerRef: string,
  items: TimeslotInput[],
): Promise<TimeslotView[]> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const field = `body.timeslots[${i}]`;
    if (item.start !== undefined) assertEndAfterStart(item.start, item.end, `${field}.start`, `${field}.end`);
    if (item.reference !== undefined) {
      if (seen.has(item.reference)) throw invalid(`${field}.reference ${item.reference} is given twice`);
      seen.add(item.reference);
    }
  });
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const now = deps.clock.now();
    const parsed = items.map((item, i) => {
      const field = `body.timeslots[${i}]`;
      const start = item.start === undefined ? nowRoundedUp(now) : parseInstant(item.start, zone, `${field}.start`);
      const end = parseInstant(item.end, zone, `${field}.end`);
      assertOrder(start, end, field);
      return { item, start, end };
    });
    const created: TimeslotView[] = [];
    for (const { item, start, end } of parsed) {
      const resource = await repo.requireResource(tx, provider.id, item.resourceReference);
      const id = randomUUID();
      const reference = item.reference ?? id;
      try {
        await tx.query(
          `INSERT INTO timeslots (id, crm_id, provider_id, resource_id, reference, start_at, end_at, raster,
             default_capacity, default_accept_bookings, address, state)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12)`,
          [
            id,
            crmId,
            provider.id,
            resource.id,
            reference,
            start,
            end,
            item.raster,
            item.defaultCapacity,
            item.defaultAcceptBookings,
            addressParam(normalizeAddress(item.address)),
            item.state,
          ],
        );
      } catch (err) {
        duplicateReference(err, reference);
      }
      created.push(timeslotView((await repo.timeslotByReference(tx, provider.id, reference))!, zone));
    }
    return created;
  });
}

/** D2: the resource's timeslots and (non-archived) appointments that overlap [from, to). */
export async function listTimeslots(
  deps: Deps,
  crmId: string,
  providerRef: string,
  resourceRef: string,
  query: { from: string; to: string },
): Promise<{ timeslots: TimeslotView[]; appointments: AppointmentView[] }> {
  assertEndAfterStart(query.from, query.to, 'query.from', 'query.to');
  const db: Queryable = deps.db;
  const provider = await requireProvider(db, crmId, providerRef);
  const zone = provider.time_zone;
  const from = parseInstant(query.from, zone, 'query.from');
  const to = parseInstant(query.to, zone, 'query.to');
  if (to.getTime() <= from.getTime()) throw invalid('query.to must be after query.from');
  const resource = await repo.requireResource(db, provider.id, resourceRef);
  const timeslots = await repo.timeslotsOverlapping(db, resource.id, from, to);
  const appointments = await loadAppointmentViews(db, zone, deps.clock.now(), {
    providerId: provider.id,
    resourceId: resource.id,
    from,
    to,
  });
  return { timeslots: timeslots.map((t) => timeslotView(t, zone)), appointments };
}

/** D3: the given fields only; the result must still end after it starts. Appointments made from it stay as they are. */
export async function updateTimeslot(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  changes: TimeslotUpdate,
): Promise<TimeslotView> {
  if (changes.start !== undefined && changes.end !== undefined)
    assertEndAfterStart(changes.start, changes.end, 'body.start', 'body.end');
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const start = changes.start === undefined ? undefined : parseInstant(changes.start, zone, 'body.start');
    const end = changes.end === undefined ? undefined : parseInstant(changes.end, zone, 'body.end');
    const row = await repo.requireTimeslot(tx, provider.id, reference);
    assertOrder(start ?? row.start_at, end ?? row.end_at, 'body');
    const resource =
      changes.resourceReference === undefined
        ? undefined
        : await repo.requireResource(tx, provider.id, changes.resourceReference);
    await tx
      .query(
        `UPDATE timeslots SET start_at = $2, end_at = $3, raster = COALESCE($4, raster),
         default_capacity = COALESCE($5, default_capacity),
         default_accept_bookings = COALESCE($6, default_accept_bookings), state = COALESCE($7, state),
         resource_id = COALESCE($8, resource_id),
         address = CASE WHEN $9::boolean THEN $10::jsonb ELSE address END, updated_at = now()
       WHERE id = $1`,
        [
          row.id,
          start ?? row.start_at,
          end ?? row.end_at,
          changes.raster ?? null,
          changes.defaultCapacity ?? null,
          changes.defaultAcceptBookings ?? null,
          changes.state ?? null,
          resource?.id ?? null,
          changes.address !== undefined,
          addressParam(normalizeAddress(changes.address)),
        ],
      )
      .catch((err) => sameStartOfRule(err, reference));
    return timeslotView((await repo.timeslotByReference(tx, provider.id, reference))!, zone);
  });
}

/** D4: appointments already made from the timeslot stay. */
export async function deleteTimeslot(deps: Deps, crmId: string, providerRef: string, reference: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const deleted = await tx.query('DELETE FROM timeslots WHERE provider_id = $1 AND reference = $2 RETURNING id', [
      provider.id,
      reference,
    ]);
    if (deleted.length === 0) throw notFound(`no timeslot found for reference ${reference}`);
  });
}
