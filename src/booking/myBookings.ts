/**
 * "My bookings" (DESIGN 7.12, docs/api.md "Consumer rules"): a consumer asks by e-mail for a link
 * to their bookings at one provider; the answer is the same whether the address is known or not,
 * and only the mailbox gets the link (`PUBLIC_BASE_URL/my-bookings/{token}`, signed, 24 h). The
 * link lists the bookings of the provider's customers with that e-mail (a consumer is who their
 * e-mail says): upcoming ones and those of the last 30 days, each with the rules of its cancel link.
 */
import { DateTime } from 'luxon';
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import {
  cancelLinkFor,
  cancelSecret,
  myBookingsTokenValid,
  readMyBookingsToken,
  signMyBookingsToken,
} from '../notifications/cancelToken.js';
import { DEFAULT_MAIL_LOCALE } from '../notifications/compose.js';
import { enqueueMails } from '../notifications/outbox.js';
import type { MyBookingsMailPayload } from '../notifications/payloads.js';
import type { Queryable } from '../storage/db.js';
import { resolveResource } from './publicResources.js';
import { findPublicPool } from '../pools/publicPools.js';
import { changeableByLink, loadView, type CancelView } from './selfCancel.js';

export const MY_BOOKINGS_VALID_HOURS = 24;
/** Mails with a "my bookings" link to one address within an hour, at most (DESIGN 7.12). */
export const MY_BOOKINGS_MAILS_PER_HOUR = 3;
const PAST_DAYS = 30;
const HOUR_MS = 3_600_000;
/** A page lists at most this many bookings (the earliest first). */
const MAX_LISTED = 200;

/** The provider a public reference is about. */
export interface ProviderScope {
  providerId: string;
  crmId: string;
  providerName: string;
}

/** The provider of a public reference, a resource's or a pool's (404 unknown, 400 ambiguous). */
export async function providerOfRef(db: Queryable, ref: string, field = 'query.ref'): Promise<ProviderScope> {
  const resource = await resolveResource(db, ref, field).catch(async (err) => {
    const pool = err instanceof DomainError && err.code === 'NOT_FOUND' && (await findPublicPool(db, ref, field));
    if (!pool) throw err;
    return (
      await db.query<{ provider_id: string; crm_id: string; provider_name: string }>(
        'SELECT id AS provider_id, crm_id, name AS provider_name FROM providers WHERE id = $1',
        [pool.provider_id],
      )
    )[0];
  });
  return { providerId: resource.provider_id, crmId: resource.crm_id, providerName: resource.provider_name };
}

/**
 * The bookings a link shows, over `participations p` joined with `appointments a` and
 * `customers c`: $1 the provider, $2 the address, $3 the earliest end shown. REQUESTED, BOOKED and
 * CANCELED ones (holds are no bookings; DELETED ones are gone), never an erased one.
 */
const SHOWN = `c.provider_id = $1 AND lower(c.email) = lower($2) AND c.erased_at IS NULL AND p.customer_id = c.id
  AND p.state IN ('REQUESTED', 'BOOKED', 'CANCELED') AND p.erased_at IS NULL AND a.id = p.appointment_id
    AND a.end_at >= $3`;

const earliestShown = (now: Date) => new Date(now.getTime() - PAST_DAYS * 24 * HOUR_MS);

export interface MyBookingsRequest {
  ref: string;
  email: string;
  /** language of the mail (de, en, de_DE…); else the customer's, else de */
  locale?: string;
}

/**
 * POST /rest/1/my-bookings: mails the link when the address has bookings to show at the provider
 * and has had fewer than 3 such mails within the hour; otherwise nothing. The caller learns
 * nothing either way. Requests for one address wait for each other, so the limit holds under
 * concurrent requests and instances.
 */
export async function requestMyBookings(deps: Deps, input: MyBookingsRequest): Promise<void> {
  const provider = await providerOfRef(deps.db, input.ref);
  const email = input.email.trim();
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`my-bookings:${email.toLowerCase()}`]);
    const [anchor] = await tx.query<{ id: string; language: string | null }>(
      `SELECT c.id, c.language FROM customers c
        WHERE EXISTS (SELECT 1 FROM participations p, appointments a WHERE ${SHOWN})
          AND c.provider_id = $1 AND lower(c.email) = lower($2) AND c.erased_at IS NULL
        ORDER BY c.created_at, c.id LIMIT 1`,
      [provider.providerId, email, earliestShown(now)],
    );
    if (!anchor) return;
    const [{ n }] = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox
        WHERE template = 'my-bookings' AND lower(recipient) = lower($1)
          AND (payload ->> 'requestedAt')::timestamptz > $2`,
      [email, new Date(now.getTime() - HOUR_MS)],
    );
    if (n >= MY_BOOKINGS_MAILS_PER_HOUR) return;
    const secret = await cancelSecret(tx, deps.config);
    const token = signMyBookingsToken(
      secret,
      { customerId: anchor.id, expiresAt: new Date(now.getTime() + MY_BOOKINGS_VALID_HOURS * HOUR_MS) },
      email,
    );
    const payload: MyBookingsMailPayload = {
      kind: 'my-bookings',
      link: `${deps.config.publicBaseUrl}/my-bookings/${token}`,
      providerName: provider.providerName,
      validHours: MY_BOOKINGS_VALID_HOURS,
      requestedAt: now.toISOString(),
    };
    const locale = input.locale?.slice(0, 2).toLowerCase() ?? anchor.language ?? DEFAULT_MAIL_LOCALE;
    await enqueueMails(tx, [
      { crmId: provider.crmId, template: 'my-bookings', recipient: email, locale, payload: { ...payload } },
    ]);
  });
}

/** One booking of the list, as its cancel page describes it, with what its link may do now. */
export interface MyBooking {
  participationId: string;
  view: CancelView;
  /** the booking's own cancel link (its manage page) */
  cancelLink: string;
  /** the link may cancel it now (a live state, not begun, outside the cancel notice) */
  canCancel: boolean;
  /** the link may move it now (as canCancel, and its resource still exists) */
  canReschedule: boolean;
}

export interface MyBookings {
  providerName: string;
  timeZone: string;
  /** the language the person booked in, for the page */
  language: string | null;
  bookings: MyBooking[];
}

const invalidLink = () =>
  notFound('the my-bookings link is not valid (forged, altered or expired), or its bookings are no longer kept');

/**
 * GET on the link: the person's bookings at the provider, upcoming and of the last 30 days, by
 * start. 404 for a forged, altered or expired token, and once the address's customer is erased
 * (docs/privacy.md) or has another address.
 */
export async function myBookingsOf(deps: Deps, token: string): Promise<MyBookings> {
  const read = readMyBookingsToken(token);
  const now = deps.clock.now();
  if (!read || read.expiresAt.getTime() <= now.getTime()) throw invalidLink();
  const [anchor] = await deps.db.query<{
    provider_id: string;
    email: string;
    language: string | null;
    provider_name: string;
    time_zone: string;
  }>(
    `SELECT c.provider_id, c.email, c.language, pv.name AS provider_name, pv.time_zone
       FROM customers c JOIN providers pv ON pv.id = c.provider_id
      WHERE c.id = $1 AND c.erased_at IS NULL AND c.email IS NOT NULL`,
    [read.customerId],
  );
  if (!anchor || !myBookingsTokenValid(await cancelSecret(deps.db, deps.config), read, anchor.email))
    throw invalidLink();
  const rows = await deps.db.query<{ id: string }>(
    `SELECT p.id FROM participations p, appointments a, customers c WHERE ${SHOWN} ORDER BY a.start_at, p.id
       LIMIT ${MAX_LISTED}`,
    [anchor.provider_id, anchor.email, earliestShown(now)],
  );
  const bookings: MyBooking[] = [];
  for (const { id } of rows) {
    const view = await loadView(deps.db, id);
    const canCancel = changeableByLink(deps, view);
    bookings.push({
      participationId: id,
      view,
      cancelLink: await cancelLinkFor(deps.db, deps.config, id),
      canCancel,
      canReschedule: canCancel && view.resourceId !== null,
    });
  }
  return {
    providerName: anchor.provider_name,
    timeZone: anchor.time_zone,
    language: bookings[0]?.view.language ?? anchor.language,
    bookings,
  };
}

/** An instant as ISO 8601 with the offset of the provider's zone. */
export const zonedIso = (d: Date, zone: string) =>
  DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true })!;
