/** A2 reserve_appointment: a RESERVED participation that holds a place for RESERVATION_HOLD_SECONDS. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { insertParticipation } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { claimSlot, withClaimRetry, type SlotTarget } from './claimSlot.js';
import { reservationView } from './reservationView.js';
import { assertSlotFields, bookableResource, channelProducts, offeredProduct, requestTimes } from './slotRequest.js';

export interface ReserveInput {
  ref: string;
  channelKey: ChannelKey;
  timeslotUuid?: string;
  appointmentUuid?: string;
  productUuid: string;
  from: string;
  to: string;
  clientIp: string;
}

const FIELDS = { start: 'body.from', end: 'body.to' };
// Namespace of the per-IP advisory locks (any fixed number not used elsewhere).
const HOLD_LOCK_NAMESPACE = 727_005;

/**
 * One client may hold at most maxHoldsPerIp live reservations, so nobody can hold a provider's
 * whole calendar. Serialized per IP with an advisory lock, taken before the resource lock.
 */
async function assertHoldAllowance(tx: Queryable, ip: string, now: Date, max: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [HOLD_LOCK_NAMESPACE, ip]);
  const [{ n }] = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM participations WHERE state = 'RESERVED' AND hold_until > $1 AND client_ip = $2`,
    [now, ip],
  );
  if (n >= max) {
    throw new DomainError('HOLD_LIMIT', `this client already holds ${n} live reservations (at most ${max}); book or let them expire first`);
  }
}

export async function reserveAppointment(deps: Deps, input: ReserveInput) {
  assertSlotFields(input.from, input.to, FIELDS);
  if (!input.timeslotUuid && !input.appointmentUuid) throw invalid('body.timeslot_uuid or body.appointment_uuid is required');
  const target: SlotTarget = input.appointmentUuid ? { appointmentId: input.appointmentUuid } : { timeslotId: input.timeslotUuid! };

  const resource = await bookableResource(deps.db, input.ref);
  const product = offeredProduct(await channelProducts(deps.db, resource, input.channelKey), input.productUuid, 'body.product_uuid', resource, input.channelKey);
  const { start, end } = requestTimes(resource, input.from, input.to, FIELDS);

  return withClaimRetry(() =>
    deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      await assertHoldAllowance(tx, input.clientIp, now, deps.config.maxHoldsPerIp);
      const appointment = await claimSlot(tx, {
        resource,
        product,
        target,
        start,
        end,
        now,
        fields: { ...FIELDS, target: input.appointmentUuid ? 'body.appointment_uuid' : 'body.timeslot_uuid' },
      });
      const participation = await insertParticipation(tx, {
        crmId: resource.crm_id,
        providerId: resource.provider_id,
        appointmentId: appointment.id,
        reference: `${randomUUID()}@booking`,
        customerId: null,
        state: 'RESERVED',
        holdUntil: new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000),
        clientIp: input.clientIp,
        channelKey: input.channelKey,
      });
      return reservationView(tx, { resource, product, appointment, participation, now });
    }),
  );
}
