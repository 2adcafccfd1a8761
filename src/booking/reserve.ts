/** A2 reserve_appointment: a RESERVED participation that holds a place for RESERVATION_HOLD_SECONDS. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { insertParticipation } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { claimSlot, withClaimRetry, type SlotTarget } from './claimSlot.js';
import { reservationView } from './reservationView.js';
import { assertSlotFields, bookableResource, requestedProduct, requestTimes } from './slotRequest.js';

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
/**
 * One client may hold at most maxHoldsPerIp live reservations, so nobody can hold a provider's
 * whole calendar. public_live_holds (migration 004) counts under a per-address advisory lock,
 * taken before the resource lock.
 */
async function assertHoldAllowance(tx: Queryable, ip: string, now: Date, max: number): Promise<void> {
  const [{ n }] = await tx.query<{ n: number }>('SELECT public_live_holds($1, $2) AS n', [ip, now]);
  if (n >= max) {
    throw new DomainError('HOLD_LIMIT', `this client already holds ${n} live reservations (at most ${max}); book or let them expire first`);
  }
}

export async function reserveAppointment(deps: Deps, input: ReserveInput) {
  assertSlotFields(input.from, input.to, FIELDS);
  if (!input.timeslotUuid && !input.appointmentUuid) throw invalid('body.timeslot_uuid or body.appointment_uuid is required');
  const target: SlotTarget = input.appointmentUuid ? { appointmentId: input.appointmentUuid } : { timeslotId: input.timeslotUuid! };

  const booking = await bookableResource(deps.db, input.ref, input.appointmentUuid ?? null);
  const { resource } = booking;
  const product = await requestedProduct(deps.db, booking, input.channelKey, input.productUuid);
  const { start, end } = requestTimes(resource, input.from, input.to, FIELDS);

  return withClaimRetry(() =>
    deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      await assertHoldAllowance(tx, input.clientIp, now, deps.config.maxHoldsPerIp);
      const claim = await claimSlot(tx, {
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
        appointmentId: claim.appointment.id,
        reference: `${randomUUID()}@booking`,
        customerId: null,
        state: 'RESERVED',
        holdUntil: new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000),
        clientIp: input.clientIp,
        channelKey: input.channelKey,
      });
      return reservationView(tx, { resource, product, claim, participation, now });
    }),
  );
}
