/** The answer of A3: the booked slot as a models.LotAppointment plus the consumer's cancel link. */
import type { Config } from '../config.js';
import { cancelLinkFor } from './cancelToken.js';
import type { AppointmentRow, ParticipationRow } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { InstantFormatter, slotItem, type ResourceView } from './bookableView.js';
import type { CompiledPattern } from './datePattern.js';
import type { ProductRow } from './publicProducts.js';

export async function createdAppointmentView(
  tx: Queryable,
  config: Config,
  b: {
    appointment: AppointmentRow;
    participation: ParticipationRow;
    liveAfter: number;
    view: ResourceView;
    product: ProductRow;
    timeFormat: CompiledPattern;
    locale: string;
  },
) {
  const a = b.appointment;
  const item = slotItem(
    {
      kind: 'models.LotAppointment',
      appointmentId: a.id,
      timeslotId: a.timeslot_id ?? a.id,
      product: { id: b.product.id, name: a.product_name ?? b.product.name },
      startMs: a.start_at.getTime(),
      endMs: a.end_at.getTime(),
      capacity: a.capacity,
      capacityLeft: Math.max(0, a.capacity - b.liveAfter),
    },
    b.view,
    new InstantFormatter(b.view.resource.time_zone, b.locale),
    b.timeFormat,
  );
  return { createdAppointment: { ...item, appointment_uuid: a.id, cancelLink: await cancelLinkFor(tx, config, b.participation.id) } };
}
