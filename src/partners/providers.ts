import { IANAZone } from 'luxon';
import type { Deps } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { retryOnUniqueViolation, type Queryable } from '../storage/db.js';
import { assertBranch, requireOwner } from './accounts.js';
import * as repo from './repo.js';

export interface ProviderInput {
  reference: string;
  ownerReference: string;
  accountReference: string;
  name: string;
  description?: string | null;
  email?: string | null;
  mobile?: string | null;
  phone?: string | null;
  impressum?: string | null;
  branch?: string;
  subbranch?: string | null;
  timeZone?: string;
  /** replaces REMINDER_MINUTES_BEFORE for this provider; [] = no reminders; null = the default again */
  reminderMinutesBefore?: number[] | null;
  /**
   * upcoming REQUESTED or BOOKED participations a consumer (by e-mail) may have here
   * (booking/consumerLimit.ts); null: no limit
   */
  maxUpcomingBookingsPerConsumer?: number | null;
}

export interface ProviderView {
  uuid: string;
  reference: string;
  ownerReference: string | null;
  accountReference: string;
  name: string;
  description: string | null;
  email: string | null;
  mobile: string | null;
  phone: string | null;
  impressum: string | null;
  branch: string | null;
  subbranch: string | null;
  timeZone: string;
  reminderMinutesBefore: number[] | null;
  maxUpcomingBookingsPerConsumer: number | null;
}

export function providerView(row: repo.ProviderRow): ProviderView {
  return {
    uuid: row.id,
    reference: row.reference,
    ownerReference: row.owner_reference,
    accountReference: row.account_reference,
    name: row.name,
    description: row.description,
    email: row.email,
    mobile: row.mobile,
    phone: row.phone,
    impressum: row.impressum,
    branch: row.branch,
    subbranch: row.subbranch,
    timeZone: row.time_zone,
    reminderMinutesBefore: row.reminder_minutes_before,
    maxUpcomingBookingsPerConsumer: row.max_upcoming_bookings_per_consumer,
  };
}

/** Each offset once, longest first. */
const reminderList = (minutes: number[] | null | undefined) =>
  minutes ? [...new Set(minutes)].sort((a, b) => b - a) : minutes;

/** The provider of a path, or 404: every provider-scoped operation starts here. */
export async function requireProvider(db: Queryable, crmId: string, reference: string): Promise<repo.ProviderRow> {
  const row = await repo.providerByReference(db, crmId, reference);
  if (!row) throw notFound(`no provider found for reference ${reference}`);
  return row;
}

function assertTimeZone(zone: string): void {
  if (!IANAZone.isValidZone(zone))
    throw invalid(`body.timeZone must be an IANA time zone such as Europe/Berlin, got ${zone}`);
}

async function requireAccount(db: Queryable, crmId: string, reference: string) {
  const account = await repo.accountByReference(db, crmId, reference);
  if (!account) throw notFound('no account found for accountReference');
  return account;
}

/**
 * C5: creates the provider (201) with its owner as first staff member; a known reference returns
 * the provider untouched (200), as C1 and C3 do.
 */
export async function createProvider(
  deps: Deps,
  crmId: string,
  input: ProviderInput,
): Promise<{ created: boolean; provider: ProviderView }> {
  if (input.timeZone !== undefined) assertTimeZone(input.timeZone);
  if (input.branch !== undefined) assertBranch(input.branch);
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const existing = await repo.providerByReference(tx, crmId, input.reference);
      if (existing) return { created: false, provider: providerView(existing) };
      const owner = await requireOwner(tx, crmId, input.ownerReference);
      const account = await requireAccount(tx, crmId, input.accountReference);
      const [{ id }] = await tx.query<{ id: string }>(
        `INSERT INTO providers (crm_id, reference, owner_user_id, account_id, name, description, email, mobile, phone,
           impressum, branch, subbranch, time_zone, reminder_minutes_before, max_upcoming_bookings_per_consumer)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
        [
          crmId,
          input.reference,
          owner.id,
          account.id,
          input.name,
          input.description ?? null,
          input.email ?? null,
          input.mobile ?? null,
          input.phone ?? null,
          input.impressum ?? null,
          input.branch ?? null,
          input.subbranch ?? null,
          input.timeZone ?? deps.config.defaultTimeZone,
          reminderList(input.reminderMinutesBefore) ?? null,
          input.maxUpcomingBookingsPerConsumer ?? null,
        ],
      );
      await tx.query('INSERT INTO provider_staff (provider_id, user_id) VALUES ($1, $2)', [id, owner.id]);
      return { created: true, provider: providerView(await repo.providerById(tx, id)) };
    }),
  );
}

export async function getProvider(deps: Deps, crmId: string, reference: string): Promise<ProviderView> {
  return providerView(await requireProvider(deps.db, crmId, reference));
}

export type ProviderUpdate = Partial<Omit<ProviderInput, 'reference'>>;

const PROVIDER_COLUMNS = {
  name: 'name',
  description: 'description',
  email: 'email',
  mobile: 'mobile',
  phone: 'phone',
  impressum: 'impressum',
  branch: 'branch',
  subbranch: 'subbranch',
  timeZone: 'time_zone',
  reminderMinutesBefore: 'reminder_minutes_before',
  maxUpcomingBookingsPerConsumer: 'max_upcoming_bookings_per_consumer',
} as const;

/** PUT on C6's path: the given fields only. */
export async function updateProvider(
  deps: Deps,
  crmId: string,
  reference: string,
  changes: ProviderUpdate,
): Promise<ProviderView> {
  if (changes.timeZone !== undefined) assertTimeZone(changes.timeZone);
  if (changes.branch !== undefined) assertBranch(changes.branch);
  return deps.db.transaction(async (tx) => {
    const row = await requireProvider(tx, crmId, reference);
    const sets: string[] = [];
    const params: unknown[] = [row.id];
    const add = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    for (const [key, column] of Object.entries(PROVIDER_COLUMNS)) {
      const value =
        key === 'reminderMinutesBefore'
          ? reminderList(changes.reminderMinutesBefore)
          : changes[key as keyof typeof PROVIDER_COLUMNS];
      if (value !== undefined) add(column, value);
    }
    if (changes.ownerReference !== undefined)
      add('owner_user_id', (await requireOwner(tx, crmId, changes.ownerReference)).id);
    if (changes.accountReference !== undefined)
      add('account_id', (await requireAccount(tx, crmId, changes.accountReference)).id);
    if (sets.length > 0) await tx.query(`UPDATE providers SET ${sets.join(', ')} WHERE id = $1`, params);
    return providerView(await repo.providerById(tx, row.id));
  });
}
