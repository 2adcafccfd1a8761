/** TypeBox schemas of "my bookings" (DESIGN 7.12): the request for the link and the list as JSON. */
import { Type } from '@fastify/type-provider-typebox';
import { Ref } from './publicSchemas.js';
import { Enveloped, Nullable } from './reply.js';

export const MyBookingsQuery = Type.Object({
  ref: Type.Unsafe<string>({
    ...Ref,
    description: "a resource of the provider (a pool's reference too, once pools exist)",
  }),
});

export const MyBookingsBody = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      format: 'email',
      description: 'the address the bookings were made with (any letter case)',
    }),
    locale: Type.Optional(
      Nullable(
        Type.String({ pattern: '^[A-Za-z]{2}([_-][A-Za-z]{2})?$', description: 'language of the mail, e.g. de or en' }),
      ),
    ),
  },
  { additionalProperties: false },
);

/** The same answer for every address, known or not: nothing to enumerate. */
export const MY_BOOKINGS_ACCEPTED =
  'If this address has bookings here, a link to them has been sent to it (valid for 24 hours).';
export const MyBookingsAccepted = Enveloped({
  message: Type.String({ description: 'the same text for every address' }),
});

export const MyBookingsParams = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'the signed token of the link in the "my bookings" mail',
  }),
});

export const MyBookingItem = Type.Object({
  participationUuid: Type.String(),
  state: Type.String({ description: 'REQUESTED, BOOKED or CANCELED' }),
  start: Type.String({ description: "ISO 8601 with the offset of the provider's zone" }),
  end: Type.String(),
  timeZone: Type.String(),
  productName: Nullable(Type.String()),
  resourceName: Nullable(Type.String()),
  address: Nullable(Type.String()),
  providerName: Type.String(),
  canCancel: Type.Boolean({ description: 'the cancel link may cancel it now (not begun, outside the cancel notice)' }),
  canReschedule: Type.Boolean({
    description: 'the cancel link may move it now (POST /rest/1/bookings/{cancel token}/reschedule)',
  }),
  cancelLink: Type.String({
    description: "the booking's own cancel link: GET shows its manage page (cancel, choose another time), POST cancels",
  }),
});

export const MyBookingsResponse = Enveloped({
  bookings: Type.Array(MyBookingItem, { description: 'upcoming bookings and those of the last 30 days, by start' }),
});
