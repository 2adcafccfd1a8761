import type { TimeslotRow } from '../scheduling/repo.js';
import type { EngineTimeslot } from './slotEngine.js';

/** The columns of a timeslot row (scheduling's TimeslotRow) the slot engine needs. */
export type EngineTimeslotRow = Pick<
  TimeslotRow,
  'id' | 'resource_id' | 'start_at' | 'end_at' | 'raster' | 'default_capacity' | 'default_accept_bookings' | 'state'
>;

export function asEngineTimeslot(t: EngineTimeslotRow): EngineTimeslot {
  return {
    id: t.id,
    resourceId: t.resource_id,
    startMs: t.start_at.getTime(),
    endMs: t.end_at.getTime(),
    rasterMin: t.raster,
    defaultCapacity: t.default_capacity,
    defaultAcceptBookings: t.default_accept_bookings,
    state: t.state,
  };
}
