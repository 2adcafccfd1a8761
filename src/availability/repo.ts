/** Named queries of availability rules; each takes the database or an open transaction. */
import { notFound } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import type { RuleWindow } from './expand.js';

export type RuleState = 'CREATED' | 'BOOKABLE';

/** A rule as stored; dates are yyyy-MM-dd text (never a JavaScript Date, whose day depends on TZ). */
export interface RuleRow {
  id: string;
  crm_id: string;
  provider_id: string;
  resource_id: string;
  resource_reference: string;
  reference: string;
  weekdays: number[];
  windows: RuleWindow[];
  raster: number;
  default_capacity: number;
  default_accept_bookings: boolean;
  state: RuleState;
  valid_from: string;
  valid_until: string | null;
  published_until: string;
}

/** What a rule says: the fields a partner gives (the rest is bookkeeping). */
export type RuleFields = Pick<
  RuleRow,
  | 'resource_id'
  | 'weekdays'
  | 'windows'
  | 'raster'
  | 'default_capacity'
  | 'default_accept_bookings'
  | 'state'
  | 'valid_from'
  | 'valid_until'
>;

const COLUMNS = `r.id, r.crm_id, r.provider_id, r.resource_id, res.reference AS resource_reference, r.reference,
  r.weekdays,
  r.windows, r.raster, r.default_capacity, r.default_accept_bookings, r.state, r.valid_from::text AS valid_from,
  r.valid_until::text AS valid_until, r.published_until::text AS published_until`;
const FROM = 'availability_rules r JOIN resources res ON res.id = r.resource_id';

export const ruleNotFound = (reference: string) => notFound(`no availability rule found for reference ${reference}`);

/** The provider's rule with this reference, locked for the rest of the transaction with `lock`; 404 when none. */
export async function requireRule(
  db: Queryable,
  providerId: string,
  reference: string,
  lock = false,
): Promise<RuleRow> {
  const [row] = await db.query<RuleRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE r.provider_id = $1 AND r.reference = $2${lock ? ' FOR UPDATE OF r' : ''}`,
    [providerId, reference],
  );
  if (!row) throw ruleNotFound(reference);
  return row;
}

/** The rule with this id (after a write, to answer it). */
export async function ruleById(db: Queryable, id: string): Promise<RuleRow> {
  const [row] = await db.query<RuleRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.id = $1`, [id]);
  return row;
}

/** The provider's rules by reference. */
export const rulesOf = (db: Queryable, providerId: string) =>
  db.query<RuleRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.provider_id = $1 ORDER BY r.reference`, [providerId]);

const fieldParams = (f: RuleFields) => [
  f.resource_id,
  f.weekdays,
  JSON.stringify(f.windows),
  f.raster,
  f.default_capacity,
  f.default_accept_bookings,
  f.state,
  f.valid_from,
  f.valid_until,
];

/** Inserts a rule that has published nothing yet (published_until the day before valid_from). */
export async function insertRule(
  db: Queryable,
  rule: { id: string; crmId: string; providerId: string; reference: string },
  f: RuleFields,
) {
  await db.query(
    `INSERT INTO availability_rules (id, crm_id, provider_id, reference, resource_id, weekdays, windows, raster,
       default_capacity,
       default_accept_bookings, state, valid_from, valid_until, published_until)
     VALUES ($1, $2, $3, $4, $5, $6::smallint[], $7::jsonb, $8, $9, $10, $11, $12::date, $13::date, $12::date - 1)`,
    [rule.id, rule.crmId, rule.providerId, rule.reference, ...fieldParams(f)],
  );
}

/** Replaces what the rule says. */
export async function updateRuleFields(db: Queryable, id: string, f: RuleFields): Promise<void> {
  await db.query(
    `UPDATE availability_rules SET resource_id = $2, weekdays = $3::smallint[], windows = $4::jsonb, raster = $5,
       default_capacity = $6,
       default_accept_bookings = $7, state = $8, valid_from = $9::date, valid_until = $10::date, updated_at = now()
     WHERE id = $1`,
    [id, ...fieldParams(f)],
  );
}

/** Records how far the rule's timeslots are made and when the horizon job should carry them on. */
export async function setPublished(
  db: Queryable,
  id: string,
  publishedUntil: string,
  nextExtendAt: Date | null,
): Promise<void> {
  await db.query('UPDATE availability_rules SET published_until = $2::date, next_extend_at = $3 WHERE id = $1', [
    id,
    publishedUntil,
    nextExtendAt,
  ]);
}

/**
 * Claims one rule whose horizon is due at `now` for the rest of the transaction (FOR UPDATE SKIP
 * LOCKED: another instance takes another rule, or none), with its provider's zone; `done` are
 * passed over (a run takes each rule once).
 */
export async function claimDueRule(
  db: Queryable,
  now: Date,
  done: string[],
): Promise<(RuleRow & { time_zone: string }) | undefined> {
  const [row] = await db.query<RuleRow & { time_zone: string }>(
    `SELECT ${COLUMNS}, p.time_zone FROM ${FROM} JOIN providers p ON p.id = r.provider_id
      WHERE r.next_extend_at <= $1 AND r.id <> ALL ($2::uuid[])
      ORDER BY r.next_extend_at LIMIT 1 FOR UPDATE OF r SKIP LOCKED`,
    [now, done],
  );
  return row;
}
