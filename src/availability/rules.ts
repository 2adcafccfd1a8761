/**
 * Availability rules (DESIGN.md §7.14): opening hours that keep a resource's timeslots published.
 * Create, list, read, change and delete; each change of the timeslots happens in the transaction
 * of the rule's own change (publish.ts, republish.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { conflict, invalid } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { requireResource } from '../scheduling/repo.js';
import { constraintName, sqlState } from '../storage/db.js';
import type { RuleWindow } from './expand.js';
import { publishAhead } from './publish.js';
import * as repo from './repo.js';
import { takeBack } from './republish.js';
import { dateIn, minuteOfDay } from './wallClock.js';

export interface RuleInput {
  reference: string;
  resourceReference: string;
  /** ISO weekdays "1" (Monday) .. "7" (Sunday) */
  weekdays: string[];
  windows: RuleWindow[];
  raster: number;
  defaultCapacity: number;
  /** default true */
  defaultAcceptBookings?: boolean;
  /** default BOOKABLE */
  state?: repo.RuleState;
  /** yyyy-MM-dd; default today in the provider's zone */
  validFrom?: string;
  /** yyyy-MM-dd, included; null or omitted: open-ended */
  validUntil?: string | null;
}

export type RuleChange = Partial<Omit<RuleInput, 'reference'>>;

export interface RuleView {
  reference: string;
  uuid: string;
  resourceReference: string;
  weekdays: string[];
  windows: RuleWindow[];
  raster: number;
  defaultCapacity: number;
  defaultAcceptBookings: boolean;
  state: repo.RuleState;
  validFrom: string;
  validUntil: string | null;
  /** the last date whose timeslots are made; the horizon job carries it forward every day */
  publishedUntil: string;
}

export function ruleView(row: repo.RuleRow): RuleView {
  return {
    reference: row.reference,
    uuid: row.id,
    resourceReference: row.resource_reference,
    weekdays: row.weekdays.map(String),
    windows: row.windows,
    raster: row.raster,
    defaultCapacity: row.default_capacity,
    defaultAcceptBookings: row.default_accept_bookings,
    state: row.state,
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    publishedUntil: row.published_until,
  };
}

const span = (w: RuleWindow) => `${w.from}-${w.to}`;

/**
 * The windows in time order, after the checks the schema cannot make (400 naming the window):
 * each ends after it starts, and none overlaps another (touching is fine).
 */
export function checkWindows(windows: RuleWindow[], field = 'body.windows'): RuleWindow[] {
  windows.forEach((w, i) => {
    if (minuteOfDay(w.to) <= minuteOfDay(w.from))
      throw invalid(`${field}[${i}].to must be after ${field}[${i}].from, got ${span(w)}`);
  });
  const order = windows.map((w, i) => ({ w, i })).sort((a, b) => minuteOfDay(a.w.from) - minuteOfDay(b.w.from));
  for (let k = 1; k < order.length; k++) {
    const [a, b] = [order[k - 1], order[k]];
    if (minuteOfDay(b.w.from) < minuteOfDay(a.w.to)) {
      throw invalid(
        `${field}[${b.i}] (${span(b.w)}) overlaps ${field}[${a.i}] (${span(a.w)}): windows must not overlap`,
      );
    }
  }
  return order.map(({ w }) => ({ from: w.from, to: w.to }));
}

const weekdaysOf = (weekdays: string[]) => [...new Set(weekdays.map(Number))].sort((a, b) => a - b);

/** 400 unless validUntil is open or not before validFrom, naming the field given (`changed`). */
function assertDateOrder(f: repo.RuleFields, changed: 'validFrom' | 'validUntil'): void {
  if (f.valid_until === null || f.valid_until >= f.valid_from) return;
  const dates = `validFrom ${f.valid_from}, validUntil ${f.valid_until}`;
  throw invalid(
    changed === 'validUntil'
      ? `body.validUntil must not be before body.validFrom (${dates})`
      : `body.validFrom must not be after the rule's validUntil (${dates})`,
  );
}

function duplicateReference(err: unknown, reference: string): never {
  if (sqlState(err) === '23505' && constraintName(err) === 'availability_rules_provider_id_reference_key') {
    throw conflict(`an availability rule with reference ${reference} already exists`);
  }
  throw err;
}

/** Creates a rule and publishes its timeslots; 404 for an unknown provider or resource, 409 for a reference in use. */
export async function createRule(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: RuleInput,
): Promise<RuleView & { timeslotsCreated: number }> {
  const windows = checkWindows(input.windows);
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const resource = await requireResource(tx, provider.id, input.resourceReference);
    const today = dateIn(deps.clock.now(), zone);
    const fields: repo.RuleFields = {
      resource_id: resource.id,
      weekdays: weekdaysOf(input.weekdays),
      windows,
      raster: input.raster,
      default_capacity: input.defaultCapacity,
      default_accept_bookings: input.defaultAcceptBookings ?? true,
      state: input.state ?? 'BOOKABLE',
      valid_from: input.validFrom ?? today,
      valid_until: input.validUntil ?? null,
    };
    assertDateOrder(fields, 'validUntil');
    const id = randomUUID();
    await repo
      .insertRule(tx, { id, crmId, providerId: provider.id, reference: input.reference }, fields)
      .catch((err) => duplicateReference(err, input.reference));
    const made = await publishAhead(tx, { id, reference: input.reference, ...fields }, zone, today);
    return { ...ruleView(await repo.ruleById(tx, id)), timeslotsCreated: made };
  });
}

export async function listRules(deps: Deps, crmId: string, providerRef: string): Promise<RuleView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return (await repo.rulesOf(deps.db, provider.id)).map(ruleView);
}

export async function getRule(deps: Deps, crmId: string, providerRef: string, reference: string): Promise<RuleView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return ruleView(await repo.requireRule(deps.db, provider.id, reference));
}

/**
 * Changes the given fields and makes the rule's timeslots from today on again, except on the dates
 * holding a live booking or a partner's appointment: those keep their timeslots, named in keptTimeslots.
 */
export async function changeRule(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  changes: RuleChange,
): Promise<{ rule: RuleView & { timeslotsCreated: number }; keptTimeslots: string[] }> {
  const windows = changes.windows === undefined ? undefined : checkWindows(changes.windows);
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const rule = await repo.requireRule(tx, provider.id, reference, true);
    const resource =
      changes.resourceReference === undefined
        ? undefined
        : await requireResource(tx, provider.id, changes.resourceReference);
    const now = deps.clock.now();
    const today = dateIn(now, zone);
    const fields: repo.RuleFields = {
      resource_id: resource?.id ?? rule.resource_id,
      weekdays: changes.weekdays === undefined ? rule.weekdays : weekdaysOf(changes.weekdays),
      windows: windows ?? rule.windows,
      raster: changes.raster ?? rule.raster,
      default_capacity: changes.defaultCapacity ?? rule.default_capacity,
      default_accept_bookings: changes.defaultAcceptBookings ?? rule.default_accept_bookings,
      state: changes.state ?? rule.state,
      valid_from: changes.validFrom ?? rule.valid_from,
      valid_until: changes.validUntil === undefined ? rule.valid_until : changes.validUntil,
    };
    assertDateOrder(fields, changes.validUntil === undefined ? 'validFrom' : 'validUntil');
    const back = await takeBack(tx, rule, zone, now);
    await repo.updateRuleFields(tx, rule.id, fields);
    const made = await publishAhead(tx, { id: rule.id, reference, ...fields }, zone, today, undefined, back.keptDates);
    return {
      rule: { ...ruleView(await repo.ruleById(tx, rule.id)), timeslotsCreated: made },
      keptTimeslots: back.kept,
    };
  });
}

/**
 * Deletes a rule: its timeslots from today on go, except on the dates holding a live booking or a
 * partner's appointment.
 */
export async function deleteRule(deps: Deps, crmId: string, providerRef: string, reference: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const rule = await repo.requireRule(tx, provider.id, reference, true);
    await takeBack(tx, rule, zone, deps.clock.now());
    // the kept timeslots stay as one-off timeslots (rule_id ON DELETE SET NULL)
    await tx.query('DELETE FROM availability_rules WHERE id = $1', [rule.id]);
  });
}
