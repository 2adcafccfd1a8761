/**
 * Changing a participation's state inside the caller's transaction, exactly per the
 * transition table (transitions.ts), with the participant's mail and the webhook event written to
 * their outboxes in the same transaction. Used by D8-D10, D14 and the public flow (cancel link).
 */
import type { Deps } from '../context.js';
import { conflict, DomainError } from '../errors.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import type { EventSource } from '../webhooks/events.js';
import { recordParticipationEvent } from './events.js';
import { holdsPlace, type ParticipationRow } from './capacity.js';
import { partnerRefusal, refusalFrom } from './claimPlace.js';
import { planTransition, type ParticipationState, type TransitionOutcome } from './transitions.js';

export interface ChangeOptions {
  /** false: the change happens, no mail is written (query sendMails=false) */
  sendMails?: boolean;
  /** the provider's text for the participant's mail; also stored on the participation */
  message?: string | null;
  /** replaces the table's mail for this change (e.g. self-cancel mails of the public flow) */
  templates?: MailTemplate[];
  /** who makes the change, for its webhook event; default partner (the D group) */
  source?: EventSource;
}

export interface ChangeResult {
  participation: ParticipationRow;
  changed: boolean;
}

/** RESERVED -> BOOKED of a hold that has expired: the place is taken anew, under the appointment's lock. */
async function retakePlace(
  tx: Queryable,
  id: string,
  now: Date,
  message: string | null,
): Promise<ParticipationRow | undefined> {
  try {
    const [row] = await tx.query<ParticipationRow>('SELECT * FROM retake_place($1, $2, $3, $4)', [
      id,
      now,
      'BOOKED',
      message,
    ]);
    return row;
  } catch (err) {
    const refused = refusalFrom(err);
    throw refused ? partnerRefusal(refused) : err;
  }
}

const lockParticipation = async (tx: Queryable, id: string) =>
  (await tx.query<ParticipationRow>('SELECT * FROM participations WHERE id = $1 FOR UPDATE', [id]))[0];

/**
 * Moves a participation to `to`, exactly per the table: 409 INVALID_TRANSITION for anything not in
 * it; the same state again changes nothing and sends nothing. Only the participation's own row is
 * locked, except for RESERVED -> BOOKED of a hold that has expired: that takes a place anew
 * (retake_place, under the appointment's lock) and fails with CAPACITY_EXHAUSTED when none is left.
 * A change that frees a place or keeps one never waits on the appointment's other participants.
 */
export async function changeParticipationState(
  tx: Queryable,
  deps: Pick<Deps, 'config' | 'clock'>,
  participation: Pick<ParticipationRow, 'id' | 'appointment_id'>,
  to: ParticipationState,
  options: ChangeOptions = {},
): Promise<ChangeResult> {
  const now = deps.clock.now();
  let updated: ParticipationRow | undefined;
  let plan: TransitionOutcome;
  let from: ParticipationState;
  for (;;) {
    // The appointment's lock comes before any participation's (D8 takes them in that order), so the
    // retake path must not lock the participation first.
    const [seen] = await tx.query<ParticipationRow>('SELECT * FROM participations WHERE id = $1', [participation.id]);
    const expiredHold = seen?.state === 'RESERVED' && !holdsPlace(seen, now);
    if (seen && to === 'BOOKED' && expiredHold) {
      plan = planTransition(seen.state, to);
      from = seen.state;
      updated = await retakePlace(tx, seen.id, now, options.message ?? null);
      if (updated) break;
      continue; // no longer RESERVED: plan again with what it is now
    }
    const current = await lockParticipation(tx, participation.id);
    if (!current) throw new DomainError('NOT_FOUND', 'the participation no longer exists');
    plan = planTransition(current.state, to);
    from = current.state;
    if (plan.kind === 'same') {
      if (options.message === undefined || options.message === current.message)
        return { participation: current, changed: false };
      const [same] = await tx.query<ParticipationRow>(
        'UPDATE participations SET message = $2, updated_at = now() WHERE id = $1 RETURNING *',
        [current.id, options.message],
      );
      return { participation: same, changed: false };
    }
    if (to === 'BOOKED') {
      // A concurrent D8 either committed first (seen here) or cancels this participation after us.
      const [appointment] = await tx.query<{ state: string; reference: string }>(
        'SELECT state, reference FROM appointments WHERE id = $1',
        [current.appointment_id],
      );
      if (appointment?.state !== 'ACTIVE') throw conflict(`appointment ${appointment?.reference ?? ''} is cancelled`);
      if (current.state === 'RESERVED' && !holdsPlace(current, now)) continue; // expired while we looked
    }
    updated = await updateState(tx, current.id, to, options.message ?? null);
    break;
  }

  await recordParticipationEvent(tx, {
    participationId: updated.id,
    source: options.source ?? 'partner',
    previousState: from,
    message: options.message ?? null,
  });
  const templates = options.templates ?? (plan.kind === 'change' && plan.mail ? [plan.mail] : []);
  if (options.sendMails !== false && templates.length > 0) {
    await enqueueParticipationMails(tx, mailSources(deps.config), updated.id, templates, {
      message: options.message ?? null,
    });
  }
  return { participation: updated, changed: true };
}

async function updateState(
  tx: Queryable,
  id: string,
  to: ParticipationState,
  message: string | null,
): Promise<ParticipationRow> {
  try {
    const [row] = await tx.query<ParticipationRow>(
      `UPDATE participations SET state = $2, hold_until = NULL, message = COALESCE($3, message), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, to, message],
    );
    return row;
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') {
      throw new DomainError(
        'AppointmentAlreadyBookedException',
        'the customer already participates in this appointment',
      );
    }
    throw err;
  }
}
