/**
 * Calendar subscriptions (DESIGN.md §7.6): a provider's own calendar, an iCalendar URL (the "secret
 * address" Google, Outlook and iCloud publish) or a CalDAV collection, read before the 201 and
 * every CALENDAR_SYNC_SECONDS after; its events are stored as busy_times rows (source
 * 'subscription'). A calendar that cannot be read keeps its last good busy times (never "free"):
 * status ERROR with lastError and failingSince, and one webhook event per outage and recovery.
 * The URL, user name and password are stored for the reads and never shown again (only the host).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import type { CalendarDeps } from './calendarDeps.js';
import { DomainError, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { requireResource } from '../scheduling/repo.js';
import type { Queryable } from '../storage/db.js';
import { recordCalendarEvent } from '../webhooks/events.js';
import { assertCalendarUrl } from './address.js';
import { isUuid } from './closures.js';
import { readCalendar, type CalendarSource, type Interval, type Validators } from './readCalendar.js';
import { enqueueWriteBacksOf } from './writeBack.js';

/** Busy times are read this far ahead. */
export const HORIZON_DAYS = 400;
const DAY_MS = 86_400_000;

export interface SubscriptionInput {
  resourceReference?: string | null;
  url?: string;
  caldav?: { url: string; username: string; password: string };
}

export interface SubscriptionView {
  id: string;
  resourceReference: string | null;
  kind: 'ics' | 'caldav';
  host: string;
  status: 'OK' | 'ERROR';
  lastSyncedAt: string | null;
  busyCount: number;
  lastError: string | null;
  failingSince: string | null;
}

export interface SubscriptionRow {
  id: string;
  crm_id: string;
  provider_id: string;
  resource_id: string | null;
  resource_reference: string | null;
  provider_reference: string;
  time_zone: string;
  kind: 'ics' | 'caldav';
  host: string;
  url: string;
  username: string | null;
  password: string | null;
  status: 'OK' | 'ERROR';
  last_error: string | null;
  failing_since: Date | null;
  last_synced_at: Date | null;
  etag: string | null;
  last_modified: string | null;
  ctag: string | null;
  sync_token: string | null;
  busy_digest: string | null;
  busy_count: number;
  expanded_until: Date | null;
}

export const SUBSCRIPTION_SELECT = `
  SELECT s.*, (SELECT reference FROM resources WHERE id = s.resource_id) AS resource_reference,
         pv.reference AS provider_reference, pv.time_zone
    FROM calendar_subscriptions s JOIN providers pv ON pv.id = s.provider_id`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const view = (r: SubscriptionRow): SubscriptionView => ({
  id: r.id,
  resourceReference: r.resource_reference,
  kind: r.kind,
  host: r.host,
  status: r.status,
  lastSyncedAt: iso(r.last_synced_at),
  busyCount: r.busy_count,
  lastError: r.last_error,
  failingSince: iso(r.failing_since),
});

const sourceOf = (r: Pick<SubscriptionRow, 'kind' | 'url' | 'username' | 'password'>): CalendarSource => ({
  kind: r.kind,
  url: r.url,
  username: r.username,
  password: r.password,
});
const validatorsOf = (r: SubscriptionRow): Validators => ({
  etag: r.etag,
  lastModified: r.last_modified,
  ctag: r.ctag,
  syncToken: r.sync_token,
});
const digestOf = (intervals: Interval[]) => createHash('sha256').update(JSON.stringify(intervals)).digest('base64url');

function readOptions(deps: CalendarDeps, db: Queryable, zone: string, now: Date) {
  return {
    allowPrivate: deps.config.calendarAllowPrivateNetworks,
    zone,
    fromMs: now.getTime(),
    toMs: now.getTime() + HORIZON_DAYS * DAY_MS,
    db,
  };
}

/**
 * The calendar to read (the schema gives exactly one of url and caldav, each a URL of its form),
 * at an allowed address.
 */
async function sourceFrom(deps: Deps, input: SubscriptionInput): Promise<CalendarSource> {
  const allowPrivate = deps.config.calendarAllowPrivateNetworks;
  if (input.url !== undefined)
    return {
      kind: 'ics',
      url: await assertCalendarUrl(input.url, allowPrivate, 'body.url'),
      username: null,
      password: null,
    };
  const { url, username, password } = input.caldav!;
  const checked = await assertCalendarUrl(url, allowPrivate, 'body.caldav.url');
  return { kind: 'caldav', url: checked, username, password };
}

/**
 * Writes the busy intervals of a subscription in place of its
 * earlier ones (the listing versions move once, by trigger).
 */
async function replaceBusy(
  tx: Queryable,
  s: { id: string; crm_id: string; provider_id: string; resource_id: string | null },
  intervals: Interval[],
): Promise<void> {
  await tx.query(`DELETE FROM busy_times WHERE source_id = $1 AND source = 'subscription'`, [s.id]);
  if (intervals.length === 0) return;
  await tx.query(
    `INSERT INTO busy_times (crm_id, provider_id, resource_id, source, source_id, start_at, end_at)
     SELECT $1, $2, $3, 'subscription', $4, to_timestamp((i->>0)::numeric / 1000), to_timestamp((i->>1)::numeric / 1000)
       FROM jsonb_array_elements($5::jsonb) i`,
    [s.crm_id, s.provider_id, s.resource_id, s.id, JSON.stringify(intervals.map((i) => [i.startMs, i.endMs]))],
  );
}

export async function createSubscription(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: SubscriptionInput,
): Promise<SubscriptionView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const resource =
    input.resourceReference == null ? null : await requireResource(deps.db, provider.id, input.resourceReference);
  const source = await sourceFrom(deps, input);
  const now = deps.clock.now();
  // read before anything is stored (never inside a transaction: the read may take seconds)
  const read = await readCalendar(source, null, readOptions(deps, deps.db, provider.time_zone, now));
  if (read.kind !== 'ok')
    throw new DomainError('CALENDAR_UNREADABLE', 'the calendar answered "not modified" to a first read');
  const id = randomUUID();
  const host = new URL(source.url).host;
  return deps.db.transaction(async (tx) => {
    const s = { id, crm_id: crmId, provider_id: provider.id, resource_id: resource?.id ?? null };
    await tx.query(
      `INSERT INTO calendar_subscriptions (id, crm_id, provider_id, resource_id, kind, host, url, username,
                                           password, status, last_synced_at, next_sync_at, etag, last_modified,
                                           ctag, sync_token, busy_digest, busy_count, expanded_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'OK', $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        id,
        crmId,
        provider.id,
        s.resource_id,
        source.kind,
        host,
        source.url,
        source.username,
        source.password,
        now,
        new Date(now.getTime() + deps.config.calendarSyncMs),
        read.validators.etag,
        read.validators.lastModified,
        read.validators.ctag,
        read.validators.syncToken,
        digestOf(read.intervals),
        read.intervals.length,
        new Date(now.getTime() + HORIZON_DAYS * DAY_MS),
      ],
    );
    await replaceBusy(tx, s, read.intervals);
    if (source.kind === 'caldav') await enqueueWriteBacksOf(tx, id, now);
    return view(await requireSubscription(tx, provider.id, id));
  });
}

async function requireSubscription(db: Queryable, providerId: string, id: string): Promise<SubscriptionRow> {
  const [row] = isUuid(id)
    ? await db.query<SubscriptionRow>(`${SUBSCRIPTION_SELECT} WHERE s.id = $1 AND s.provider_id = $2`, [id, providerId])
    : [];
  if (!row) throw notFound(`no calendar subscription found with id ${id}`);
  return row;
}

export async function listSubscriptions(deps: Deps, crmId: string, providerRef: string): Promise<SubscriptionView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return (
    await deps.db.query<SubscriptionRow>(
      `${SUBSCRIPTION_SELECT} WHERE s.provider_id = $1 ORDER BY s.created_at, s.id`,
      [provider.id],
    )
  ).map(view);
}

export async function getSubscription(
  deps: Deps,
  crmId: string,
  providerRef: string,
  id: string,
): Promise<SubscriptionView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return view(await requireSubscription(deps.db, provider.id, id));
}

/** Removes the subscription; its busy times stop blocking at once (their rows go in the same transaction). */
export async function deleteSubscription(deps: Deps, crmId: string, providerRef: string, id: string): Promise<void> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  await requireSubscription(deps.db, provider.id, id);
  await deps.db.transaction(async (tx) => {
    await tx.query(`DELETE FROM busy_times WHERE source_id = $1 AND source = 'subscription'`, [id]);
    await tx.query('DELETE FROM calendar_subscriptions WHERE id = $1', [id]);
  });
}

/** POST .../sync: reads the calendar now and answers its state after the read (ERROR with lastError when it failed). */
export async function syncNow(deps: Deps, crmId: string, providerRef: string, id: string): Promise<SubscriptionView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  await syncSubscription(deps, await requireSubscription(deps.db, provider.id, id), true);
  return view(await requireSubscription(deps.db, provider.id, id));
}

/**
 * Reads one subscription's calendar and stores the outcome. A good read replaces the busy times
 * when they changed and marks it OK (calendar.sync_recovered when it was failing); a failed one
 * keeps them and marks it ERROR (calendar.sync_failed once per outage). `whole` skips the
 * conditional read. Each status change is one conditional UPDATE, so of two instances that read
 * the same calendar at once only one sends the event.
 */
export async function syncSubscription(deps: CalendarDeps, row: SubscriptionRow, whole = false): Promise<void> {
  const now = deps.clock.now();
  const next = new Date(now.getTime() + deps.config.calendarSyncMs);
  const horizon = new Date(now.getTime() + HORIZON_DAYS * DAY_MS);
  const stale = !row.expanded_until || horizon.getTime() - row.expanded_until.getTime() > DAY_MS;
  let read: Awaited<ReturnType<typeof readCalendar>>;
  try {
    read = await readCalendar(
      sourceOf(row),
      whole || stale ? null : validatorsOf(row),
      readOptions(deps, deps.db, row.time_zone, now),
    );
  } catch (err) {
    const message = err instanceof DomainError ? err.message : 'the calendar could not be read';
    if (!(err instanceof DomainError))
      deps.log?.warn({ err, subscription: row.id }, 'calendar read failed unexpectedly');
    await deps.db.transaction(async (tx) => {
      const [failed] = await tx.query<{ id: string }>(
        `UPDATE calendar_subscriptions SET status = 'ERROR', failing_since = $2, last_error = $3, next_sync_at = $4
           WHERE id = $1 AND status = 'OK' RETURNING id`,
        [row.id, now, message, next],
      );
      if (failed) await recordCalendarEvent(tx, row.crm_id, 'calendar.sync_failed', eventData(row, now, message));
      else
        await tx.query('UPDATE calendar_subscriptions SET last_error = $2, next_sync_at = $3 WHERE id = $1', [
          row.id,
          message,
          next,
        ]);
    });
    return;
  }
  await deps.db.transaction(async (tx) => {
    const set: unknown[] = [row.id, now, next];
    let changes = '';
    if (read.kind === 'ok') {
      const digest = digestOf(read.intervals);
      if (digest !== row.busy_digest) await replaceBusy(tx, row, read.intervals);
      const v = read.validators;
      changes =
        `, etag = $4, last_modified = $5, ctag = $6, sync_token = $7, busy_digest = $8, busy_count = $9, ` +
        `expanded_until = $10`;
      set.push(v.etag, v.lastModified, v.ctag, v.syncToken, digest, read.intervals.length, horizon);
    }
    const [was] = await tx.query<{ failing_since: Date | null }>(
      `UPDATE calendar_subscriptions s SET status = 'OK', last_error = NULL, failing_since = NULL, last_synced_at = $2,
         next_sync_at = $3${changes}
         FROM (SELECT id, status, failing_since FROM calendar_subscriptions WHERE id = $1 FOR UPDATE) old
        WHERE s.id = old.id RETURNING CASE WHEN old.status = 'ERROR' THEN old.failing_since END AS failing_since`,
      set,
    );
    if (was?.failing_since)
      await recordCalendarEvent(tx, row.crm_id, 'calendar.sync_recovered', {
        ...eventData(row, now, null),
        failingSince: was.failing_since.toISOString(),
      });
  });
}

/** A calendar event's data: which subscription, never its URL. */
function eventData(row: SubscriptionRow, at: Date, error: string | null) {
  return {
    crmId: row.crm_id,
    subscriptionId: row.id,
    providerReference: row.provider_reference,
    resourceReference: row.resource_reference,
    kind: row.kind,
    host: row.host,
    at: at.toISOString(),
    ...(error === null ? {} : { error }),
  };
}

/**
 * Claims up to `limit` subscriptions due for a read (pushing their next read ahead as a lease), for the refresh job.
 */
export async function claimDue(db: Queryable, now: Date, leaseMs: number, limit: number): Promise<SubscriptionRow[]> {
  const claimed = await db.query<{ id: string }>(
    `UPDATE calendar_subscriptions SET next_sync_at = $2
      WHERE id IN (SELECT id FROM calendar_subscriptions WHERE next_sync_at <= $1 ORDER BY next_sync_at LIMIT $3
        FOR UPDATE SKIP LOCKED)
      RETURNING id`,
    [now, new Date(now.getTime() + leaseMs), limit],
  );
  if (claimed.length === 0) return [];
  return db.query<SubscriptionRow>(`${SUBSCRIPTION_SELECT} WHERE s.id = ANY($1::uuid[])`, [claimed.map((c) => c.id)]);
}
