/**
 * Changing a participation's state inside the caller's transaction, exactly per the spec's
 * transition table (transitions.ts), with the participant's mail written to the outbox in the
 * same transaction. Used by D9/D10 here and by the public flow (cancel link).
 */
import type { Deps } from '../context.js';
import { conflict, DomainError } from '../errors.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import { assertPlaceFree, lockAppointment, type ParticipationRow } from './capacity.js';
import { planTransition, type ParticipationState } from './transitions.js';

export interface ChangeOptions {
  /** false: the change happens, no mail is written (query sendMails=false) */
  sendMails?: boolean;
  /** the provider's text for the participant's mail; also stored on the participation */
  message?: string | null;
  /** replaces the table's mail for this change (e.g. self-cancel mails of the public flow) */
  templates?: MailTemplate[];
}

export interface ChangeResult {
  participation: ParticipationRow;
  changed: boolean;
}

/**
 * Moves a participation to `to`. Locks its appointment first (the kernel's lock order), re-reads
 * the participation under that lock, then applies the table: 409 INVALID_TRANSITION for anything
 * not in it; the same state again changes nothing and sends nothing. RESERVED -> BOOKED of a hold
 * that has expired takes a place anew, so it fails with CAPACITY_EXHAUSTED when none is left.
 */
export async function changeParticipationState(
  tx: Queryable,
  deps: Pick<Deps, 'config' | 'clock'>,
  participation: Pick<ParticipationRow, 'id' | 'appointment_id'>,
  to: ParticipationState,
  options: ChangeOptions = {},
): Promise<ChangeResult> {
  const appointment = await lockAppointment(tx, participation.appointment_id);
  const [current] = await tx.query<ParticipationRow>('SELECT * FROM participations WHERE id = $1 FOR UPDATE', [participation.id]);
  if (!appointment || !current) throw new DomainError('NOT_FOUND', 'the participation no longer exists');
  const plan = planTransition(current.state, to);
  if (plan.kind === 'same') {
    if (options.message === undefined || options.message === current.message) return { participation: current, changed: false };
    const [updated] = await tx.query<ParticipationRow>(
      'UPDATE participations SET message = $2, updated_at = now() WHERE id = $1 RETURNING *',
      [current.id, options.message],
    );
    return { participation: updated, changed: false };
  }

  const now = deps.clock.now();
  if (to === 'BOOKED') {
    if (appointment.state !== 'ACTIVE') throw conflict(`appointment ${appointment.reference} is cancelled`);
    const holdExpired = current.state === 'RESERVED' && (current.hold_until === null || current.hold_until <= now);
    if (holdExpired) await assertPlaceFree(tx, appointment, now, { excluding: current.id });
  }

  let updated: ParticipationRow;
  try {
    [updated] = await tx.query<ParticipationRow>(
      `UPDATE participations SET state = $2, hold_until = NULL, message = COALESCE($3, message), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [current.id, to, options.message ?? null],
    );
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') {
      throw new DomainError('AppointmentAlreadyBookedException', 'the customer already participates in this appointment');
    }
    throw err;
  }

  const templates = options.templates ?? (plan.mail ? [plan.mail] : []);
  if (options.sendMails !== false && templates.length > 0) {
    await enqueueParticipationMails(tx, deps.config, updated.id, templates, { message: options.message ?? null });
  }
  return { participation: updated, changed: true };
}
