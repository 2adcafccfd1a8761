/** Every mail the service sends. The payload each one carries is described in notifications/README.md. */
export const MAIL_TEMPLATES = [
  'user-email-verification',
  'booking-confirmed',
  'booking-notification',
  'booking-requested',
  'booking-request-to-confirm',
  'booking-declined',
  'participation-booked',
  'participation-canceled',
  'appointment-cancelled',
  'resource-deleted-cancellation',
  'customer-removed',
  'self-cancel-confirmation',
  'self-cancel-notification',
  'booking-rescheduled',
  'booking-rescheduled-notification',
  'booking-reminder',
  'my-bookings',
] as const;

export type MailTemplate = (typeof MAIL_TEMPLATES)[number];
