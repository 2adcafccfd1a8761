/** The answer of A3: the booked slot as a models.LotAppointment plus the consumer's cancel link. */
import type { AppointmentRow } from '../scheduling/capacity.js';
import { InstantFormatter, slotItem, type ResourceView } from './bookableView.js';
import type { CompiledPattern } from './datePattern.js';
import type { ProductRow } from './publicProducts.js';

export function createdAppointmentView(b: {
  appointment: AppointmentRow;
  liveAfter: number;
  view: ResourceView;
  product: ProductRow;
  timeFormat: CompiledPattern;
  locale: string;
  cancelLink: string;
}) {
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
  return { createdAppointment: { ...item, appointment_uuid: a.id, cancelLink: b.cancelLink } };
}
