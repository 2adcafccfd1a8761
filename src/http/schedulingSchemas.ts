import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { PARTICIPATION_STATES } from '../scheduling/transitions.js';
import { Nullable } from './reply.js';
import {
  exactlyOneOf,
  IsoDateTime,
  PathSegment,
  ProviderPath,
  requiring,
  RULE,
  StringEnum,
  Text,
} from './requestSchema.js';

const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Flag = (description: string) => Opt(Type.Boolean({ description }));

const Email = Type.String({ format: 'email', maxLength: 254 });
const Mobile = Type.String({
  pattern: '^\\+[1-9][0-9 ()/-]{5,24}$',
  maxLength: 32,
  description: 'with country code, e.g. +49 170 1234567',
});
const Note = Type.String({ maxLength: 1023, description: 'internal note, at most 1023 characters' });
const Language = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'two-letter language code such as de, en' });
const Message = Type.String({ maxLength: 1024, description: 'text for the mail to the participant' });
const State = StringEnum(PARTICIPATION_STATES, PARTICIPATION_STATES.join(', '));
const TimeslotState = StringEnum(['CREATED', 'BOOKABLE'] as const, 'CREATED (hidden) or BOOKABLE (public)');

// ---- params ----
export const TimeslotParams = ProviderPath({ timeslotRef: PathSegment() });
export const ResourceParams = ProviderPath({ resourceRef: PathSegment() });
export const ParticipationParams = ProviderPath({ participationRef: PathSegment() });
export const CustomerParams = ProviderPath({ customerRef: PathSegment() });

// ---- addresses ----
const AddressObject = Type.Object({
  city: Text(),
  street: Text(),
  number: Text(64),
  zip: Text(32),
  country: Opt(Type.String({ minLength: 2, maxLength: 3 })),
  countryCode: Opt(Type.String({ minLength: 2, maxLength: 3, description: 'default DE' })),
});
const AddressBody = Type.Union([AddressObject, Text(1000, 'free text, e.g. a video-meeting note')], {
  description: 'object (city, street, number, zip required; country or countryCode, default DE) or plain text',
});
const AddressOut = Nullable(
  Type.Union([
    Type.Object({
      city: Type.String(),
      street: Type.String(),
      number: Type.String(),
      zip: Type.String(),
      countryCode: Type.String(),
    }),
    Type.String(),
  ]),
);

// ---- timeslots ----
const timeslotFields = {
  resourceReference: Text(),
  start: Opt(IsoDateTime('ISO 8601; without offset: wall clock in the provider zone; default now')),
  end: IsoDateTime('ISO 8601, after start'),
  raster: Type.Integer({ minimum: 1, maximum: 100_000, description: 'minutes per bookable slot' }),
  defaultCapacity: Type.Integer({ minimum: 0, maximum: 100_000 }),
  defaultAcceptBookings: Type.Boolean(),
  state: TimeslotState,
  address: Opt(AddressBody),
};
const TimeslotBody = Type.Object({ reference: Opt(Text(255, 'generated when omitted')), ...timeslotFields });
export const TimeslotsBody = Type.Object({ timeslots: Type.Array(TimeslotBody, { minItems: 1, maxItems: 1000 }) });
export const TimeslotUpdateBody = Type.Object({
  ...Type.Partial(Type.Object(timeslotFields)).properties,
  address: Opt(Nullable(AddressBody)),
});
export const Timeslot = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  resourceReference: Type.String(),
  start: Type.String(),
  end: Type.String(),
  raster: Type.Integer(),
  defaultCapacity: Type.Integer(),
  defaultAcceptBookings: Type.Boolean(),
  state: Type.String(),
  address: AddressOut,
  ruleReference: Nullable(Type.String({ description: 'the availability rule that made it; null: a one-off timeslot' })),
});
export const PeriodQuery = Type.Object({ from: IsoDateTime('ISO 8601'), to: IsoDateTime('ISO 8601, after from') });

// ---- appointments ----
const InlineParticipation = Type.Object({
  reference: Opt(Text(255, 'required for a single appointment (unique in it); generated in a series')),
  name: Text(),
  email: Email,
  mobile: Opt(Mobile),
  note: Opt(Note),
  state: State,
});
/**
 * D6's two forms: with series_data a series (from and to required), without it a single appointment
 * (reference, start and end required, and a reference on each inline participation).
 */
const appointmentForms = {
  allOf: [
    {
      if: requiring('series_data'),
      then: { ...requiring('from', 'to'), [RULE]: 'is required for a series' },
      else: {
        ...requiring('reference', 'start', 'end'),
        properties: {
          ...requiring('reference', 'start', 'end').properties,
          participations: { items: { ...requiring('reference'), [RULE]: 'is required for a single appointment' } },
        },
        [RULE]: 'is required for a single appointment',
      },
    },
  ],
};
export const AppointmentBody = Type.Object(
  {
    reference: Opt(Text(255, 'required for a single appointment; ignored for a series')),
    start: Opt(
      IsoDateTime('required for a single appointment; ISO 8601, without offset: wall clock in the provider zone'),
    ),
    end: Opt(IsoDateTime('required for a single appointment; ISO 8601, after start')),
    from: Opt(IsoDateTime('required for a series: its time of day is the start of the daily window')),
    to: Opt(IsoDateTime("required for a series: its time of day is the end of the daily window (later than from's)")),
    series_data: Opt(
      Type.Object({
        from: IsoDateTime('first date of the series (date or date-time)'),
        to: IsoDateTime('last date of the series, included'),
        raster: Type.Integer({ minimum: 1, maximum: 100_000, description: 'minutes per appointment' }),
        weekdays: Opt(
          Type.Array(Type.Union([Type.String({ pattern: '^[1-7]$' }), Type.Integer({ minimum: 1, maximum: 7 })]), {
            maxItems: 7,
            description: "'1' (Monday) .. '7' (Sunday); required when the series spans more than one day",
          }),
        ),
      }),
    ),
    capacity: Opt(Type.Integer({ minimum: 0, maximum: 100_000, description: 'default 0' })),
    acceptBookings: Flag('publicly bookable; default false'),
    resourceReference: Text(),
    productReference: Text(),
    productName: Opt(Text(255, 'overrides the product name')),
    contactReference: Opt(Text(255, 'user reference of the responsible staff member')),
    address: Opt(AddressBody),
    price: Opt(
      Type.Object({
        value: Type.Number({ minimum: 0, maximum: 9_999_999_999 }),
        currency: StringEnum(['EUR', 'CHF'] as const),
      }),
    ),
    description: Opt(Type.String({ maxLength: 4000 })),
    notes: Opt(Type.String({ maxLength: 4000 })),
    participations: Opt(Type.Array(InlineParticipation, { maxItems: 1000 })),
  },
  appointmentForms,
);
export const CreateAppointmentQuery = Type.Object({
  ignoreCapacity: Flag('inline participations may exceed the capacity; default false'),
});
export const AppointmentListQuery = Type.Object({
  productRef: Opt(Text()),
  resourceRef: Opt(Text()),
  includeArchived: Flag('default false'),
});
/** The consumer's answers to the product's booking questions (DESIGN 7.7), labels as at booking time. */
export const Answers = Type.Array(
  Type.Object({
    key: Type.String(),
    label: Type.Object(
      { de: Type.String(), en: Type.String() },
      { description: "the question's label when the consumer booked" },
    ),
    value: Type.Union([Type.String(), Type.Boolean()], {
      description: "text (select: the option's value), or true/false for a checkbox",
    }),
  }),
  { description: "answers to the product's booking questions; [] when none" },
);
const Participant = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  customerReference: Nullable(Type.String()),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  mobile: Nullable(Type.String()),
  note: Nullable(Type.String()),
  state: Type.String(),
  messages: Type.Array(Type.String()),
  answers: Answers,
});
export const Appointment = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  start: Type.String(),
  end: Type.String(),
  capacity: Type.Integer(),
  capacityLeft: Type.Integer(),
  acceptBookings: Type.Boolean(),
  state: Type.String({ description: 'ACTIVE or CANCELLED' }),
  seriesId: Nullable(Type.String()),
  archived: Type.Boolean(),
  description: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  productReference: Nullable(Type.String()),
  productName: Nullable(Type.String()),
  resourceReference: Nullable(Type.String()),
  contactReference: Nullable(Type.String()),
  address: AddressOut,
  price: Nullable(Type.Object({ value: Type.Number(), currency: Type.String() })),
  participations: Type.Array(Participant),
});
export const AppointmentSelectorBody = Type.Object(
  {
    appointmentReference: Opt(Text()),
    seriesId: Opt(Text()),
  },
  exactlyOneOf('appointmentReference', 'seriesId'),
);
export const CancelQuery = Type.Object({ message: Opt(Message) });

// ---- participations ----
export const ParticipationBody = Type.Object({
  reference: Text(),
  appointmentReference: Text(),
  customerReference: Text(),
  state: State,
  message: Opt(Message),
});
export const AddParticipationQuery = Type.Object({
  ignoreCapacity: Flag('add even when the appointment is full; default false'),
  onDuplicateRaise: Flag('an existing reference is an error (true) or is updated (false, default)'),
  sendMails: Flag('default true'),
});
export const ParticipationStateBody = Type.Object({ state: State, message: Opt(Message) });
export const SendMailsQuery = Type.Object({ sendMails: Flag('default true') });
export const Participation = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  appointmentReference: Type.String(),
  customerReference: Nullable(Type.String()),
  state: Type.String(),
  message: Nullable(Type.String()),
  answers: Answers,
});

// ---- customers ----
export const CustomerBody = Type.Object({
  customerReference: Text(),
  providerReference: Text(255, 'the provider of the path'),
  userName: Text(),
  email: Opt(Email),
  mobile: Opt(Mobile),
  note: Opt(Note),
  language: Opt(Language),
});
export const CustomerUpdateBody = Type.Object({
  customerReference: Opt(Text(255, 'a new reference renames the customer')),
  userName: Opt(Text()),
  email: Opt(Nullable(Email)),
  mobile: Opt(Nullable(Mobile)),
  note: Opt(Nullable(Note)),
  language: Opt(Nullable(Language)),
});
export const Customer = Type.Object({
  customerReference: Type.String(),
  providerReference: Type.String(),
  userName: Type.String(),
  email: Nullable(Type.String()),
  mobile: Nullable(Type.String()),
  note: Nullable(Type.String()),
  language: Nullable(Type.String()),
});
export const DeleteCustomerQuery = Type.Object({
  ignoreFutureAppointments: Flag("cancel the customer's future participations instead of refusing; default false"),
  sendMails: Flag('mail the customer about each removed appointment; default true'),
});
