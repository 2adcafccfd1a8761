/**
 * The provider's decision link of a booking request (docs/provider-links.md): the signed token alone
 * authorizes confirming (REQUESTED -> BOOKED) or declining (REQUESTED -> CANCELED) that one
 * participation. It is the provider's: it is only ever in the provider-side request mail.
 */
import { storedAnswers, type StoredAnswer } from '../notifications/answers.js';
import { cancelSecret, verifyLinkToken } from '../notifications/cancelToken.js';
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { addressText, participationFacts } from '../notifications/compose.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { loadResourceContact } from '../offerings/contact.js';
import type { Queryable } from '../storage/db.js';
import type { ParticipationRow } from './capacity.js';
import { changeParticipationState } from './participations.js';
import type { ParticipationState } from './transitions.js';

export type Decision = 'confirm' | 'decline';

/** What the decision page shows: the request, in the provider's zone. */
export interface RequestView {
  state: ParticipationRow['state'];
  /** the resource contact's language (the request mail's), else null */
  language: string | null;
  start: Date;
  end: Date;
  timeZone: string;
  productName: string | null;
  resourceName: string | null;
  address: string | null;
  providerName: string;
  customer: { name: string | null; email: string | null; mobile: string | null };
  /** the consumer's message with the request (after a decision: the provider's, if given) */
  message: string | null;
  /** the consumer's answers to the booking questions */
  answers: StoredAnswer[];
}

/** The request was decided (or cancelled) before: nothing changes; the view says what it is now. */
export class RequestNotPending extends DomainError {
  constructor(readonly view: RequestView) {
    super('CONFLICT', `the request is no longer awaiting a decision (it is ${view.state})`);
  }
}

/** A decision's effect: the state it leads to and the consumer's mail (docs/provider-links.md). */
const OUTCOME: Record<Decision, { to: ParticipationState; mail: MailTemplate }> = {
  confirm: { to: 'BOOKED', mail: 'booking-confirmed' },
  decline: { to: 'CANCELED', mail: 'booking-declined' },
};

const invalidLink = () => notFound('the decision link is not valid');

async function participationOf(db: Queryable, deps: Deps, token: string): Promise<string> {
  const id = verifyLinkToken(await cancelSecret(db, deps.config), 'decide', token);
  if (!id) throw invalidLink();
  return id;
}

async function loadView(db: Queryable, participationId: string): Promise<RequestView & { appointmentId: string }> {
  const row = await participationFacts(db, participationId);
  if (!row) throw invalidLink();
  const contact = row.resource_id ? await loadResourceContact(db, row.resource_id) : null;
  return {
    appointmentId: row.a_id,
    state: row.p_state as ParticipationRow['state'],
    language: contact?.language ?? null,
    start: row.start_at,
    end: row.end_at,
    timeZone: row.time_zone,
    productName: row.a_product_name ?? row.product_name,
    resourceName: row.resource_name,
    address: addressText(row.a_address ?? row.resource_address),
    providerName: row.provider_name,
    customer: { name: row.c_name, email: row.c_email, mobile: row.c_mobile },
    message: row.p_message,
    answers: storedAnswers(row.p_answers),
  };
}

function assertPending<V extends RequestView>(view: V): V {
  if (view.state !== 'REQUESTED') throw new RequestNotPending(view);
  return view;
}

/** GET: the request and whether it still awaits a decision (409 when not). Changes nothing. */
export async function viewRequest(deps: Deps, token: string): Promise<RequestView> {
  const { appointmentId: _, ...view } = await loadView(deps.db, await participationOf(deps.db, deps, token));
  return assertPending(view);
}

/**
 * POST: the provider's decision, in one transaction. The participation's row lock is taken before
 * its state is read, so a consumer cancelling at the same moment either committed first (the request
 * is no longer REQUESTED: 409, nothing changes) or waits and then finds it decided.
 */
export async function decideRequest(
  deps: Deps,
  token: string,
  decision: Decision,
  message: string | null,
): Promise<RequestView> {
  return deps.db.transaction(async (tx) => {
    const id = await participationOf(tx, deps, token);
    await tx.query('SELECT 1 FROM participations WHERE id = $1 FOR UPDATE', [id]);
    const { appointmentId, ...view } = assertPending(await loadView(tx, id));
    const state = await applyDecision(tx, deps, { id, appointment_id: appointmentId }, decision, message);
    return { ...view, state, message: message ?? view.message };
  });
}

/**
 * The one place a decision changes state: through the participation state machine (the table's
 * rules, the participant's mail in the same transaction). Events about the change (webhooks,
 * source "decision-link") belong here.
 */
async function applyDecision(
  tx: Queryable,
  deps: Deps,
  participation: Pick<ParticipationRow, 'id' | 'appointment_id'>,
  decision: Decision,
  message: string | null,
): Promise<ParticipationRow['state']> {
  const { to, mail } = OUTCOME[decision];
  const { participation: after } = await changeParticipationState(tx, deps, participation, to, {
    templates: [mail],
    source: 'decision-link',
    ...(message === null ? {} : { message }),
  });
  return after.state;
}
