/** A2 reserve_appointment: a RESERVED participation that holds a place for RESERVATION_HOLD_SECONDS. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { clientKey } from './clientKey.js';
import { claimSlot, type SlotTarget } from './claimSlot.js';
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
 * Reads the resource and the slot, then takes the place in one statement that commits on its own.
 * One client may hold at most maxHoldsPerIp live reservations, so nobody can hold a provider's
 * whole calendar. The client is its key (clientKey: IPv4 per address, IPv6 per network), kept in the
 * hold's client_ip; claim_place counts its live holds without a lock (public_live_holds), so holds
 * of one client in flight at once never wait for each other and may overshoot the cap by at most
 * their number.
 */
export async function reserveAppointment(deps: Deps, input: ReserveInput) {
  assertSlotFields(input.from, input.to, FIELDS);
  if (!input.timeslotUuid && !input.appointmentUuid) throw invalid('body.timeslot_uuid or body.appointment_uuid is required');
  const target: SlotTarget = input.appointmentUuid ? { appointmentId: input.appointmentUuid } : { timeslotId: input.timeslotUuid! };

  const booking = await bookableResource(deps.db, input.ref, input.appointmentUuid ?? input.timeslotUuid!);
  const { resource } = booking;
  const product = await requestedProduct(deps.db, booking, input.channelKey, input.productUuid);
  const { start, end } = requestTimes(resource, input.from, input.to, FIELDS);
  const now = deps.clock.now();
  const client = clientKey(input.clientIp, deps.config.ipv6PrefixLength);
  const claim = await claimSlot(deps.db, {
    booking,
    product,
    target,
    start,
    end,
    now,
    fields: FIELDS,
    participation: {
      crmId: resource.crm_id,
      providerId: resource.provider_id,
      reference: `${randomUUID()}@booking`,
      customerId: null,
      state: 'RESERVED',
      holdUntil: new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000),
      clientIp: client,
      channelKey: input.channelKey,
    },
    holdLimit: { ip: client, max: deps.config.maxHoldsPerIp },
    listLive: true,
    asyncCommit: true,
  });
  return reservationView({ resource, product, claim });
}
