/**
 * The answer of A2: the new hold and its appointment. Other participants appear only as a state
 * and a participation id: never a name, email or mobile, and never their placeholder id (it is the
 * bearer secret that turns a hold into a booking).
 */
import { addressText } from '../notifications/compose.js';
import type { ClaimedPlace } from '../scheduling/claimPlace.js';
import { formatInstant } from '../scheduling/time.js';
import type { ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';

const utc = (d: Date) => formatInstant(d, 'UTC');

/** `claim` made with listLive: the live participations of an appointment it joined came with it. */
export function reservationView(r: { resource: PublicResource; product: ProductRow; claim: ClaimedPlace }) {
  const { resource, product } = r;
  const { appointment: a, participation: p } = r.claim;
  // a new appointment holds nothing but this reservation
  const live = r.claim.created ? [{ id: p.id, placeholder_id: p.placeholder_id, state: p.state }] : r.claim.live!;
  const capacityLeft = Math.max(0, a.capacity - live.length);
  return {
    participation: {
      uuid: p.id,
      appointment_uuid: a.id,
      timeslot_uuid: a.timeslot_id ?? a.id,
      resource_uuid: resource.id,
      product_uuid: product.id,
      from: utc(a.start_at),
      to: utc(a.end_at),
      appointment_capacity: a.capacity,
      appointment_capacity_left: capacityLeft,
      customer_uuid: p.placeholder_id,
      customer_mobile: null,
      customer_fullName: null,
      customer_email: null,
      customer_note: null,
      state: p.state,
      formatedAddress: addressText(a.address ?? resource.address) ?? '',
      messages: [] as string[],
    },
    appointments: [
      {
        uuid: a.id,
        kind: 'models.LotAppointment',
        product_id: a.product_id ?? product.id,
        product_name: a.product_name ?? product.name,
        resource_id: resource.id,
        from: utc(a.start_at),
        to: utc(a.end_at),
        state: a.state,
        capacity: a.capacity,
        capacity_left: capacityLeft,
        customers: live.map((row) => {
          const own = row.id === p.id;
          return {
            customer_placeholder_id: own ? row.placeholder_id : null,
            customer_uuid: own ? row.placeholder_id : null,
            participationState: row.state,
            participation_id: row.id,
          };
        }),
      },
    ],
  };
}
