/**
 * The consumer's own cancellation through the signed link of their confirmation mail. The token
 * alone authorizes: it names one participation and cannot be forged without the secret.
 */
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { bookingWindowOf, withinCancelNotice } from '../offerings/bookingWindow.js';
import { addressText, enqueueParticipationMails, participationFacts } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import { storedAnswers, type StoredAnswer } from '../notifications/answers.js';
import type { ParticipationRow } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { cancelSecret, verifyCancelToken } from '../notifications/cancelToken.js';
import { recordParticipationEvent } from '../scheduling/events.js';

/** What the cancel page shows: only this participation's own appointment. */
export interface CancelView {
  state: ParticipationRow['state'];
  /** the participation's locale, else the customer's language */
  language: string | null;
  start: Date;
  end: Date;
  timeZone: string;
  productName: string | null;
  resourceName: string | null;
  address: string | null;
  providerName: string;
  /** what the manage page's slot picker needs to offer other times */
  resourceId: string | null;
  /** the pool the booking was made through, while it exists: the picker offers all its members */
  poolId: string | null;
  productId: string | null;
  channelKey: string | null;
  /** the resource's cancel notice in minutes; null: until the start */
  cancelNoticeMinutes: number | null;
  /** the consumer's own answers to the booking questions (shown on the manage page only) */
  answers: StoredAnswer[];
}

/**
 * The link no longer cancels or moves: the appointment has begun, or less than the resource's
 * cancel notice is left (docs/lifecycle.md). The view says what it was about.
 */
export class TooLateToCancel extends DomainError {
  constructor(
    readonly view: CancelView,
    readonly reason: 'started' | 'notice',
  ) {
    super(
      reason === 'started' ? 'TOO_LATE' : 'CANCEL_NOTICE',
      reason === 'started'
        ? 'the appointment has already started and can no longer be cancelled online'
        : `the appointment can no longer be cancelled or moved online less than ${view.cancelNoticeMinutes} ` +
            `minutes before it starts`,
    );
  }
}

const CANCELABLE: ReadonlySet<ParticipationRow['state']> = new Set(['RESERVED', 'REQUESTED', 'BOOKED']);
const invalidLink = () => notFound('the cancel link is not valid');

export async function participationOf(db: Queryable, deps: Deps, token: string): Promise<string> {
  const id = verifyCancelToken(await cancelSecret(db, deps.config), token);
  if (!id) throw invalidLink();
  // an erased participation (docs/privacy.md) is an anonymous place: its links are gone
  const [erased] = await db.query('SELECT 1 FROM participations WHERE id = $1 AND erased_at IS NOT NULL', [id]);
  if (erased) throw invalidLink();
  return id;
}

/** The participation and its appointment; DELETED counts as gone (deleted without notice). */
export async function loadView(db: Queryable, participationId: string): Promise<CancelView> {
  const row = await participationFacts<ParticipationRow['state']>(db, participationId);
  if (!row || row.p_state === 'DELETED') throw invalidLink();
  return {
    state: row.p_state,
    language: row.p_locale ?? row.c_language,
    start: row.start_at,
    end: row.end_at,
    timeZone: row.time_zone,
    productName: row.a_product_name ?? row.product_name,
    resourceName: row.resource_name,
    address: addressText(row.a_address ?? row.resource_address),
    providerName: row.provider_name,
    resourceId: row.resource_id,
    poolId: row.p_pool_id ?? null,
    productId: row.a_product_id ?? null,
    channelKey: row.p_channel_key ?? null,
    cancelNoticeMinutes: bookingWindowOf(row.resource_booking_window).cancelNoticeMinutes,
    answers: storedAnswers(row.p_answers),
  };
}

/** The link acts only before the start and outside the cancel notice (409 otherwise). */
export function assertStillChangeable(deps: Deps, view: CancelView): void {
  if (!CANCELABLE.has(view.state)) return;
  const now = deps.clock.now();
  if (now >= view.start) throw new TooLateToCancel(view, 'started');
  if (withinCancelNotice(view.cancelNoticeMinutes, view.start, now)) throw new TooLateToCancel(view, 'notice');
}

/**
 * Whether the link may still cancel (and move) the booking now:
 * a live state, before the start, outside the cancel notice.
 */
export function changeableByLink(deps: Deps, view: CancelView): boolean {
  if (!CANCELABLE.has(view.state)) return false;
  try {
    assertStillChangeable(deps, view);
    return true;
  } catch (err) {
    if (err instanceof TooLateToCancel) return false;
    throw err;
  }
}

/** GET: what the link is about. Changes nothing. */
export async function viewCancellation(deps: Deps, token: string): Promise<CancelView> {
  const id = await participationOf(deps.db, deps, token);
  const view = await loadView(deps.db, id);
  assertStillChangeable(deps, view);
  return view;
}

/**
 * POST: REQUESTED/BOOKED/RESERVED -> CANCELED under the participation's row lock, with the mails to the
 * consumer and the provider side in the same transaction. Already CANCELED: nothing changes.
 */
export async function cancelByToken(
  deps: Deps,
  token: string,
): Promise<{ alreadyCanceled: boolean; view: CancelView }> {
  return deps.db.transaction(async (tx) => {
    const id = await participationOf(tx, deps, token);
    // Freeing a place needs only the participation's own row; the read after the lock sees a
    // concurrent change that won it.
    await tx.query('SELECT 1 FROM participations WHERE id = $1 FOR UPDATE', [id]);
    const view = await loadView(tx, id);
    if (view.state === 'CANCELED') return { alreadyCanceled: true, view };
    assertStillChangeable(deps, view);
    await tx.query(
      `UPDATE participations SET state = 'CANCELED', hold_until = NULL, updated_at = now() WHERE id = $1`,
      [id],
    );
    await recordParticipationEvent(tx, { participationId: id, source: 'cancel-link', previousState: view.state });
    await enqueueParticipationMails(tx, mailSources(deps.config), id, [
      'self-cancel-confirmation',
      'self-cancel-notification',
    ]);
    return { alreadyCanceled: false, view: { ...view, state: 'CANCELED' as const } };
  });
}
