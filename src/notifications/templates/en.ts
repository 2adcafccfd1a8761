import type { Wording } from './types.js';

export const en: Wording = {
  appointment: {
    'booking-confirmed': {
      subject: (v) => `Booking confirmed: ${v.what} on ${v.day}`,
      body: () => ['Thank you for your booking. Your appointment is confirmed.'],
    },
    'booking-notification': {
      subject: (v) => `New booking: ${v.what} on ${v.day} (${v.participant})`,
      body: (v) => [`${v.participant} has booked the following appointment.`],
    },
    'booking-requested': {
      subject: (v) => `Request received: ${v.what} on ${v.day}`,
      body: (v) => [
        'Thank you for your request.',
        `${v.provider} will review it and confirm the appointment as soon as possible. ` +
          `Until then the appointment is not yet booked.`,
      ],
    },
    'booking-request-to-confirm': {
      subject: (v) => `Please confirm: request for ${v.what} on ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} would like to book the following appointment. Please confirm or decline the request.`,
      ],
    },
    'booking-declined': {
      subject: (v) => `Request declined: ${v.what} on ${v.day}`,
      body: (v) => [
        `Unfortunately ${v.provider} cannot confirm your request for the following appointment. ` +
          `It has not been booked.`,
      ],
    },
    'participation-booked': {
      subject: (v) => `Appointment confirmed: ${v.what} on ${v.day}`,
      body: (v) => [`${v.provider} has confirmed your appointment. It is now booked.`],
    },
    'participation-canceled': {
      subject: (v) => `Appointment cancelled: ${v.what} on ${v.day}`,
      body: (v) => [`${v.provider} has cancelled your participation in the following appointment.`],
    },
    'appointment-cancelled': {
      subject: (v) => `Cancelled: ${v.what} on ${v.day}`,
      body: (v) => [`${v.provider} has cancelled the following appointment. It will not take place.`],
    },
    'resource-deleted-cancellation': {
      subject: (v) => `Appointment cancelled: ${v.what} on ${v.day}`,
      body: (v) => [
        `The following appointment will not take place because ${v.resource ?? 'the offer'} is no longer available.`,
        `If you have any questions, please contact ${v.provider}.`,
      ],
    },
    'customer-removed': {
      subject: (v) => `Booking cancelled: ${v.what} on ${v.day}`,
      body: (v) => [`${v.provider} has removed you from the following appointment.`],
    },
    'self-cancel-confirmation': {
      subject: (v) => `Cancellation confirmed: ${v.what} on ${v.day}`,
      body: () => ['You have cancelled the following appointment. Your place has been released.'],
    },
    'self-cancel-notification': {
      subject: (v) => `Cancellation: ${v.what} on ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} has cancelled the following appointment through the cancellation link. ` +
          `The place is free again.`,
      ],
    },
    'booking-rescheduled': {
      subject: (v) => `Appointment moved: ${v.what} on ${v.day}`,
      body: (v) => [
        `Your appointment has been moved${v.previousPeriod ? ` (previously: ${v.previousPeriod})` : ''}. ` +
          `This is the new time.`,
      ],
    },
    'booking-rescheduled-notification': {
      subject: (v) => `Appointment moved: ${v.what} on ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} has moved the appointment${v.previousPeriod ? ` of ${v.previousPeriod}` : ''} ` +
          `to the following time through the booking link. The previous place is free again.`,
      ],
    },
    'booking-reminder': {
      subject: (v) => `Reminder: ${v.what} on ${v.day}`,
      body: () => ['This is a reminder of your upcoming appointment.'],
    },
  },
  verification: {
    subject: () => 'Please confirm your email address',
    body: (v) => [
      `Your email address ${v.email} has been linked to a user account (reference ${v.reference}).`,
      'Please confirm your email address again the next time you sign in. If you did not request this, ' +
        'please contact the provider you booked with.',
    ],
  },
  myBookings: {
    subject: (v) => `Your bookings at ${v.provider}`,
    body: (v) => [
      `You asked for a link to your bookings at ${v.provider}. ` +
        `It shows your upcoming appointments and those of the last 30 days, and lets you move or cancel them.`,
      `The link is valid for ${v.validHours} hours. If you did not ask for it, you can ignore this email.`,
    ],
    intro: 'Your bookings, no login needed:',
    action: 'View my bookings',
  },
  greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
  labels: {
    when: 'When',
    previously: 'Previously',
    what: 'What',
    where: 'Where',
    contact: 'Contact',
    customer: 'Customer',
    messageFrom: (provider) => `Message from ${provider}`,
    customerMessage: "Customer's message",
    answers: 'Answers to the booking questions',
    cancelIntro: 'If you cannot attend, please cancel the appointment here:',
    cancelAction: 'Cancel appointment',
    decisionIntro: 'Confirm or decline the request here, no login needed:',
    decisionAction: 'Review and decide',
    calendarInvite: 'A calendar invitation is attached.',
    calendarCancel: 'The attached calendar file removes the appointment from your calendar.',
  },
  fallback: { what: 'Appointment', participant: 'A customer' },
  closing: {
    consumer: (provider) => ['Kind regards', provider],
    provider: ['This message was sent automatically by the booking system.'],
    verification: ['Kind regards', 'Your booking service'],
  },
};
