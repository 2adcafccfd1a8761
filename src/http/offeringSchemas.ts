import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { BOOKING_PROCESSES, CHANNEL_KEYS } from '../offerings/channels.js';
import { CHANNEL_TYPES } from '../offerings/contact.js';
import { ANSWER_MAX, MAX_QUESTIONS, QUESTION_KEY_PATTERN, QUESTION_TYPES } from '../offerings/questions.js';
import { Nullable } from './reply.js';
import {
  atMostOnePer,
  CrmPath,
  OptionalText,
  PathSegment,
  ProviderPath,
  requiredWhenGiven,
  RULE,
  StringEnum,
  Text,
} from './requestSchema.js';

const OptText = (max = 255, description?: string) => Type.Optional(Nullable(OptionalText(max, description)));
/** Minutes: whole, never negative, at most a year. */
const Minutes = (description: string) =>
  Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 525_600, description })));

export const ProviderParams = ProviderPath({});
export const ProductParams = ProviderPath({ productRef: PathSegment() });
export const ResourceParams = ProviderPath({ resourceRef: PathSegment() });
export const UserParams = CrmPath({ userRef: PathSegment() });
export const ProfileParams = ProviderPath({ profileRef: PathSegment() });

// ---- products ----

const Label = (what: string) =>
  Type.Object(
    { de: Text(200, `${what} in German`), en: Text(200, `${what} in English`) },
    { additionalProperties: false, description: `${what} in German and English` },
  );

const QuestionOption = Type.Object(
  { value: Text(100, 'the answer A3 sends'), label: Label('what the consumer sees') },
  { additionalProperties: false },
);

const questionMembers = {
  key: Type.String({
    pattern: QUESTION_KEY_PATTERN,
    description: 'unique in the product; the key of the answer in A3',
    [RULE]: 'must be a lower-case letter followed by up to 39 lower-case letters, digits or _',
  }),
  required: Type.Optional(
    Type.Boolean({ default: false, description: 'A3 without an answer is 400; a required checkbox must be true' }),
  ),
  label: Label('the question'),
};
/** What a 400 says of a member another type of question has (options: select; maxLength: text, textarea). */
const MEMBERS_BY_TYPE = '(options: select only; maxLength: text and textarea only)';
const onlyFor = (type: string) => ({
  [RULE]: { additionalProperties: `is not allowed for a question of type ${type} ${MEMBERS_BY_TYPE}` },
});
const TextQuestion = (type: 'text' | 'textarea', description: string) =>
  Type.Object(
    {
      ...questionMembers,
      type: Type.Literal(type, { description }),
      maxLength: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: ANSWER_MAX[type]!,
          description: `the longest answer; default ${ANSWER_MAX[type]}`,
        }),
      ),
    },
    { additionalProperties: false, ...onlyFor(type) },
  );
const questionVariants = [
  TextQuestion('text', 'one line'),
  TextQuestion('textarea', 'several lines'),
  Type.Object(
    {
      ...questionMembers,
      type: Type.Literal('select', { description: 'one of options' }),
      options: Type.Array(QuestionOption, {
        minItems: 1,
        maxItems: 50,
        description: 'the answers to choose from (values unique)',
      }),
    },
    { additionalProperties: false, ...onlyFor('select') },
  ),
  Type.Object(
    {
      ...questionMembers,
      type: StringEnum(
        QUESTION_TYPES.filter((t) => !['text', 'textarea', 'select'].includes(t)),
        'checkbox (true/false), email or phone',
      ),
    },
    { additionalProperties: false, ...onlyFor('checkbox, email or phone') },
  ),
];

/** A booking question: one variant per type (options only for select, maxLength only for text and textarea). */
export const Question = Type.Unsafe<Static<(typeof questionVariants)[number]>>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: questionVariants as TSchema[],
  description:
    `type: ${QUESTION_TYPES.join(', ')}; options only for select, maxLength only for text ` +
    `(at most ${ANSWER_MAX.text}) and textarea (at most ${ANSWER_MAX.textarea})`,
});

const Questions = Type.Optional(
  Nullable(
    Type.Array(Question, {
      maxItems: MAX_QUESTIONS,
      description: `booking questions the consumer answers in A3 (at most ${MAX_QUESTIONS}; null or [] clears)`,
    }),
  ),
);

const productFields = {
  name: Text(),
  description: OptText(4000),
  minDuration: Minutes('minutes'),
  maxDuration: Minutes('minutes'),
  leadTimeMinutes: Minutes('travel/preparation buffer before the appointment'),
  followUpTimeMinutes: Minutes('return/wrap-up buffer after the appointment'),
  exclusive: Type.Optional(Type.Boolean({ description: 'offered only on RESOURCE_EXCLUSIVE' })),
  questions: Questions,
};

export const ProductBody = Type.Object({ reference: Text(255, 'unique per provider'), ...productFields });
export const ProductUpdateBody = Type.Object({ ...productFields, name: Type.Optional(Text()) });

export const Product = Type.Object({
  uuid: Type.String(),
  reference: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  minDuration: Nullable(Type.Integer()),
  maxDuration: Nullable(Type.Integer()),
  leadTimeMinutes: Nullable(Type.Integer()),
  followUpTimeMinutes: Nullable(Type.Integer()),
  exclusive: Type.Boolean(),
  questions: Type.Array(
    Type.Object({
      key: Type.String(),
      type: Type.String(),
      required: Type.Boolean(),
      label: Type.Object({ de: Type.String(), en: Type.String() }),
      options: Type.Optional(
        Type.Array(Type.Object({ value: Type.String(), label: Type.Object({ de: Type.String(), en: Type.String() }) })),
      ),
      maxLength: Type.Optional(Type.Integer({ description: 'text and textarea; also email (254) and phone (32)' })),
    }),
  ),
});

// ---- resources ----

export const ChannelTypeSchema = StringEnum(CHANNEL_TYPES, CHANNEL_TYPES.join(', '));
const BookingProcess = StringEnum(BOOKING_PROCESSES);
const ChannelSetting = Type.Object({ bookingProcess: BookingProcess }, { additionalProperties: false });

export const ChannelsBody = Type.Partial(
  Type.Object(
    Object.fromEntries(CHANNEL_KEYS.map((k) => [k, ChannelSetting])) as Record<
      (typeof CHANNEL_KEYS)[number],
      typeof ChannelSetting
    >,
  ),
  {
    additionalProperties: false,
    description: `bookingProcess per channelKey (${CHANNEL_KEYS.join(', ')}); default IMMEDIATE`,
  },
);

export const AddressBody = Type.Object({
  city: Text(),
  street: Text(),
  number: Text(32),
  zip: Text(32),
  countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; default DE' })),
});

const BookingWindowBody = Type.Object(
  {
    minNoticeMinutes: Minutes('bookable until this many minutes before the start; null: until it starts'),
    maxAdvanceDays: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: 3650,
          description: 'bookable until the end of the day this many days from today (provider zone); null: no limit',
        }),
      ),
    ),
    cancelNoticeMinutes: Minutes(
      'the consumer may cancel or move by link until this many minutes before the start; null: until it starts',
    ),
  },
  {
    additionalProperties: false,
    description: 'given members replace the stored ones (null clears one); null clears every limit',
  },
);

/** A booking limit: a positive number of live participations (holds, requests, bookings); null: none. */
const Limit = (description: string) =>
  Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000, description })));

const BookingLimitsBody = Type.Object(
  {
    perDay: Limit('at most this many bookings in appointments starting on one date (provider zone); null: none'),
    perWeek: Limit('at most this many in appointments starting in one ISO week, Monday to Sunday; null: none'),
  },
  {
    additionalProperties: false,
    description: 'replaces the stored limits as a whole (a member left out is null); null: no limits',
  },
);

const resourceFields = {
  publicName: Text(255, 'shown to customers'),
  internalName: Text(255, 'for the provider'),
  description: OptText(4000),
  products: Type.Optional(
    Type.Array(Text(), { maxItems: 500, description: 'product references; the products must exist' }),
  ),
  contact: Type.Optional(Nullable(Text(255, 'user reference of the contact person'))),
  contactProfileReference: Type.Optional(
    Nullable(Text(255, 'profile of the contact user; needs contact in the same body')),
  ),
  website: OptText(2048),
  address: Type.Optional(Nullable(AddressBody)),
  channels: Type.Optional(ChannelsBody),
  imgUrl: OptText(2048),
  msgHelpText: OptText(4000),
  contactChannelType: Type.Optional(Nullable(ChannelTypeSchema)),
  bookingWindow: Type.Optional(Nullable(BookingWindowBody)),
  bookingLimits: Type.Optional(Nullable(BookingLimitsBody)),
};

const contactRule = { allOf: [requiredWhenGiven('contactProfileReference', 'contact')] };
export const ResourceBody = Type.Object(
  { reference: Text(255, 'unique per provider'), ...resourceFields },
  contactRule,
);
export const ResourceUpdateBody = Type.Object(
  {
    ...resourceFields,
    publicName: Type.Optional(resourceFields.publicName),
    internalName: Type.Optional(resourceFields.internalName),
    archived: Type.Optional(Type.Boolean({ description: 'archived resources cannot be booked' })),
  },
  contactRule,
);

export const ResourceCreateQuery = Type.Object({
  onDuplicateRaise: Type.Optional(
    Type.Boolean({ default: false, description: 'true: an existing reference is 400; false: it is updated' }),
  ),
});
export const ResourceDeleteQuery = Type.Object({
  ignoreFutureAppointments: Type.Optional(
    Type.Boolean({ default: false, description: 'archive future appointments and inform their participants' }),
  ),
});

const AddressOut = Type.Object({
  city: Type.String(),
  street: Type.String(),
  number: Type.String(),
  zip: Type.String(),
  countryCode: Type.String(),
});
const ChannelsOut = Type.Object(
  Object.fromEntries(CHANNEL_KEYS.map((k) => [k, Type.Object({ bookingProcess: Type.String() })])) as Record<
    (typeof CHANNEL_KEYS)[number],
    ReturnType<typeof Type.Object<{ bookingProcess: ReturnType<typeof Type.String> }>>
  >,
);

export const Resource = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  provider: Type.String(),
  publicName: Type.String(),
  internalName: Type.String(),
  description: Nullable(Type.String()),
  contact: Nullable(Type.String()),
  contactProfileReference: Nullable(Type.String()),
  website: Nullable(Type.String()),
  archived: Type.Boolean(),
  products: Type.Array(Type.String()),
  address: Nullable(AddressOut),
  channels: ChannelsOut,
  imgUrl: Nullable(Type.String()),
  msgHelpText: Nullable(Type.String()),
  contactChannelType: Nullable(Type.String()),
  bookingWindow: Type.Object({
    minNoticeMinutes: Nullable(Type.Integer()),
    maxAdvanceDays: Nullable(Type.Integer()),
    cancelNoticeMinutes: Nullable(Type.Integer()),
  }),
  bookingLimits: Type.Object(
    { perDay: Nullable(Type.Integer()), perWeek: Nullable(Type.Integer()) },
    { description: "live participations in the resource's appointments per date and ISO week; null: none" },
  ),
});

// ---- contact profiles ----

export const ContactChannelBody = Type.Object({
  type: ChannelTypeSchema,
  label: OptText(255, 'display label'),
  value: Text(2048, 'number, email, URL or address'),
});

const ContactChannels = Type.Array(ContactChannelBody, {
  maxItems: CHANNEL_TYPES.length,
  description: 'one channel per type',
  allOf: atMostOnePer(
    'type',
    CHANNEL_TYPES,
    (type) => `has more than one channel of type ${type}; only one channel per type can exist`,
  ),
});

export const GeneralProfileBody = Type.Object({ name: Text(255, 'public name'), contactChannels: ContactChannels });

export const ProfileBody = Type.Object({
  reference: Text(),
  userReference: Text(),
  providerReference: Text(),
  name: Text(255, 'public name'),
  contactChannels: ContactChannels,
});

export const Profile = Type.Object({
  reference: Type.Optional(Type.String()),
  userReference: Type.String(),
  providerReference: Type.Optional(Type.String()),
  name: Type.String(),
  contactChannels: Type.Array(
    Type.Object({ type: Type.String(), label: Nullable(Type.String()), value: Type.String() }),
  ),
});
