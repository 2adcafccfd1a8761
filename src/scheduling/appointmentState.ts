/**
 * appointment_is_current (scheduling/appointment_is_current.sql) for a row already in hand: its
 * TypeScript twin, with no imports, so the pure slot engine can use it.
 */
export const isCurrentAppointment = (a: { state: string; archived: boolean }): boolean =>
  a.state === 'ACTIVE' && !a.archived;
