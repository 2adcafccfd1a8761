/** A2 reserve_appointment: a RESERVED participation that holds a place for RESERVATION_HOLD_SECONDS. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import type { ChannelKey } from '../offerings/channels.js';
import { clientKey } from './clientKey.js';
import { claimSlot } from './claimSlot.js';
import { reservationView } from './reservationView.js';
import { readSlotRequest } from './slotRequest.js';
import { readRequestSpan } from '../scheduling/time.js';

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
  const span = readRequestSpan(input.from, input.to, FIELDS);
  // The route schema requires one of the two (http/publicSchemas.ts, atLeastOneOf).
  const slotUuid = (input.appointmentUuid ?? input.timeslotUuid) as string;
  const request = await readSlotRequest(deps.db, {
    ref: input.ref,
    slotUuid,
    channelKey: input.channelKey,
    productUuid: input.productUuid,
    span,
  });
  const { resource, product } = request;
  const now = deps.clock.now();
  const client = clientKey(input.clientIp, deps.config.ipv6PrefixLength);
  const claim = await claimSlot(deps.db, {
    request,
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
