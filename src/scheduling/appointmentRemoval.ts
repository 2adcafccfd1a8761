/** D7 delete without notification and D8 cancel, by appointmentReference or seriesId. */
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import type { Queryable } from '../storage/db.js';
import { LIVE_PARTICIPATION_SQL, lockAppointment, type ParticipationRow } from './capacity.js';
import { changeParticipationState } from './participations.js';
import { recordAppointmentEvent, recordParticipationEvent } from './events.js';

/** Exactly one of the two (the route schema holds it). */
export interface AppointmentSelector {
  appointmentReference?: string;
  seriesId?: string;
}

const describe = (s: AppointmentSelector) =>
  s.seriesId !== undefined ? `seriesId ${s.seriesId}` : `reference ${s.appointmentReference}`;

/** Ids of the selected appointments in lock order (id), or 404. */
async function selectIds(tx: Queryable, providerId: string, s: AppointmentSelector): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM appointments WHERE provider_id = $1 AND (reference = $2 OR series_id = $3) ORDER BY id`,
    [providerId, s.appointmentReference ?? null, s.seriesId ?? null],
  );
  if (rows.length === 0) throw notFound(`no appointment found for ${describe(s)}`);
  return rows.map((r) => r.id);
}

/** D7: removes the appointments and their participations; nobody is told. Returns how many. */
export async function deleteAppointments(
  deps: Deps,
  crmId: string,
  providerRef: string,
  selector: AppointmentSelector,
): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const ids = await selectIds(tx, provider.id, selector);
    for (const id of ids) await lockAppointment(tx, id);
    // Partners learn of the participations that go with them (expired holds count as gone already).
    const live = await tx.query<{ id: string; state: string }>(
      `SELECT id, state FROM participations
        WHERE appointment_id = ANY($1::uuid[]) AND ${LIVE_PARTICIPATION_SQL}
        ORDER BY created_at, id`,
      [ids, deps.clock.now()],
    );
    for (const p of live)
      await recordParticipationEvent(tx, {
        participationId: p.id,
        source: 'partner',
        previousState: p.state,
        state: 'DELETED',
      });
    await tx.query('DELETE FROM appointments WHERE id = ANY($1::uuid[])', [ids]);
    return ids.length;
  });
}

/**
 * D8: each ACTIVE appointment becomes CANCELLED (and so unbookable); its RESERVED, REQUESTED and
 * BOOKED participations become CANCELED, and each REQUESTED or BOOKED participant gets an
 * 'appointment-cancelled' mail with `message` (a RESERVED hold is a consumer mid-booking and, as
 * for RESERVED -> CANCELED in the table, gets none). DELETED participations stay as they are.
 * Returns how many appointments were cancelled now (already cancelled ones count 0).
 */
export async function cancelAppointments(
  deps: Deps,
  crmId: string,
  providerRef: string,
  selector: AppointmentSelector,
  message: string | undefined,
): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    let count = 0;
    for (const id of await selectIds(tx, provider.id, selector)) {
      const appointment = (await lockAppointment(tx, id))!;
      if (appointment.state !== 'ACTIVE') continue;
      await tx.query(`UPDATE appointments SET state = 'CANCELLED', updated_at = now() WHERE id = $1`, [id]);
      await recordAppointmentEvent(tx, { appointmentId: id, type: 'appointment.cancelled', source: 'partner' });
      await cancelParticipations(tx, deps, id, 'appointment-cancelled', message ?? null);
      count++;
    }
    return count;
  });
}

/**
 * Every participation of the appointment that holds or held a place (RESERVED, REQUESTED, BOOKED)
 * becomes CANCELED through the transition table, with its event; each REQUESTED or BOOKED
 * participant gets `template` (a RESERVED hold is a consumer mid-booking and, as for
 * RESERVED -> CANCELED in the table, gets none). The appointment is locked by the caller.
 */
export async function cancelParticipations(
  tx: Queryable,
  deps: Pick<Deps, 'config' | 'clock'>,
  appointmentId: string,
  template: MailTemplate,
  message: string | null,
): Promise<void> {
  const participations = await tx.query<ParticipationRow>(
    `SELECT * FROM participations WHERE appointment_id = $1 AND state IN ('RESERVED', 'REQUESTED', 'BOOKED')
       ORDER BY created_at, id`,
    [appointmentId],
  );
  for (const p of participations) {
    const templates: MailTemplate[] = p.state === 'RESERVED' ? [] : [template];
    await changeParticipationState(tx, deps, p, 'CANCELED', { templates, message });
  }
}
