/** TypeBox schemas of the public booking flow (group A). */
import { Type } from '@fastify/type-provider-typebox';
import { DATE_PATTERN_FORM, DATE_PATTERN_RULE } from '../booking/datePattern.js';
import { CHANNEL_KEYS, DEFAULT_CHANNEL_KEY, type ChannelKey } from '../offerings/channels.js';
import { QUESTION_KEY_PATTERN } from '../offerings/questions.js';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from './idempotency.js';
import { BODY_ERRORS, Enveloped, errorReplies, Nullable } from './reply.js';
import { atLeastOneOf, exactlyOneOf, IsoDateTime, LinkToken, QueryObject, RULE } from './requestSchema.js';

const ChannelKeyQuery = Type.Optional(
  Type.Unsafe<ChannelKey>({
    type: 'string',
    enum: [...CHANNEL_KEYS],
    default: DEFAULT_CHANNEL_KEY,
    description: `one of ${CHANNEL_KEYS.join(', ')}`,
  }),
);
export const Ref = Type.String({
  minLength: 1,
  maxLength: 300,
  description: 'resourceId@providerUuid@platform, resourceId@platform, or the resource UUID',
});
// a repeated query parameter: given at least once, or left out (no query string sends an empty list)
const Refs = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: 50, description }));
/** A Java-style date pattern (booking/datePattern.ts): its letters, their counts and quoted text. */
const Pattern = (description: string) =>
  Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: DATE_PATTERN_FORM,
      description,
      [RULE]: DATE_PATTERN_RULE,
    } as { description: string }),
  );
const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const OptText = (max: number, description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: max, ...(description ? { description } : {}) })));

export const RefParams = Type.Object({ ref: Ref });

/** Idempotency-Key on A2, A3 and reschedule (http/idempotency.ts). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'makes a retry safe: the same key, path and body within 24 h replays the first answer ' +
        '(Idempotent-Replayed: true)',
      [RULE]: IDEMPOTENCY_KEY_RULE,
    } as { description: string }),
  ),
});

/**
 * A2, A3 and reschedule: 404 unknown resource, timeslot or token; 409 started slot, duplicate
 * booking, wrong state, an Idempotency-Key in use or (A3) the consumer's limit; 412 slot taken,
 * outside the booking window or at a booking limit; 422 Idempotency-Key reused; 429 rate limit or
 * hold limit.
 */
export const bookingErrors = errorReplies(400, 404, 409, 412, 422, 429, ...BODY_ERRORS);
/** A4, A5: POST with an optional (ignored) body; 404 for references that name nothing. */
export const scopeErrors = errorReplies(400, 404, ...BODY_ERRORS);

/**
 * A languageTag the server takes: language, optional script,
 * optional region (de, de_DE, en-US, zh_Hant_TW); blank: the default.
 */
export const LANGUAGE_TAG_PATTERN = '^\\s*(?:[A-Za-z]{2,3}(?:[_-][A-Za-z]{4})?(?:[_-](?:[A-Za-z]{2}|[0-9]{3}))?)?\\s*$';

// ---- A1 ----

export const UpcomingQuery = Type.Object({
  groupFormat: Pattern('Java-style pattern of the group keys; default yyyy-MM-dd'),
  timeFormat: Pattern('Java-style pattern of formattedStart/formattedEnd; default yyyy-MM-dd HH:mm'),
  languageTag: Type.Optional(
    Type.String({
      maxLength: 35,
      pattern: LANGUAGE_TAG_PATTERN,
      description: 'language of month and weekday names: language and optional region, e.g. de_DE, en_US or en',
    }),
  ),
  channelKey: ChannelKeyQuery,
  ref: Refs('additional resources; repeatable'),
  prdRef: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'product reference or UUID' })),
});

const ContactChannel = Nullable(Type.Object({ type: Type.String(), value: Type.String() }));
const ProductRefs = Type.Array(Type.Object({ uuid: Type.String(), name: Type.String() }));

const slotMembers = {
  kind: Type.String({ description: 'models.Bookable or models.LotAppointment' }),
  timeslot_uuid: Type.String(),
  product_uuid: Nullable(Type.String()),
  resource_uuid: Type.String(),
  product_name: Type.String(),
  resource_name: Type.String(),
  start: Type.String(),
  end: Type.String(),
  formattedStart: Type.String(),
  formattedEnd: Type.String(),
  contact_channel: ContactChannel,
  capacity: Type.Integer(),
  capacity_left: Type.Integer(),
  products: ProductRefs,
};

export const Bookable = Type.Object({
  ...slotMembers,
  kind: Type.String({ description: 'models.Bookable, models.LotAppointment, or models.PoolBookable on a pool' }),
  timeslot_uuid: Nullable(Type.String({ description: 'null on a pool' })),
  resource_uuid: Nullable(Type.String({ description: 'null on a pool: the member is assigned at booking' })),
  appointment_uuid: Type.Optional(Type.String({ description: 'models.LotAppointment only' })),
  pool_uuid: Type.Optional(Type.String({ description: 'models.PoolBookable only: send it to A2 and A3' })),
});

export const UpcomingResponse = Type.Object(
  { public_visible: Type.Boolean() },
  { additionalProperties: Type.Array(Bookable), description: 'group text -> bookables, plus public_visible' },
);

// ---- A2 ----

export const ReserveQuery = Type.Object({
  ref: Type.Optional(Type.String({ maxLength: 300, description: 'resource or channel reference (informational)' })),
  channelKey: ChannelKeyQuery,
});

export const ReserveBody = Type.Object(
  {
    timeslot_uuid: Type.Optional(Uuid('for models.Bookable')),
    appointment_uuid: Type.Optional(Uuid('for models.LotAppointment (wins when both are given)')),
    pool_uuid: Type.Optional(Uuid('for models.PoolBookable: the path names the pool, the member is assigned')),
    product_uuid: Uuid(),
    from: IsoDateTime('ISO 8601, the start of a listed slot', 40),
    to: IsoDateTime('ISO 8601, the end of a listed slot', 40),
  },
  atLeastOneOf('timeslot_uuid', 'appointment_uuid', 'pool_uuid'),
);

const Customer = Type.Object({
  customer_placeholder_id: Nullable(Type.String()),
  customer_uuid: Nullable(Type.String()),
  participationState: Type.String(),
  participation_id: Type.String(),
});

export const ReserveResponse = Enveloped({
  participation: Type.Object({
    uuid: Type.String(),
    appointment_uuid: Type.String(),
    timeslot_uuid: Type.String(),
    resource_uuid: Type.String(),
    product_uuid: Type.String(),
    from: Type.String(),
    to: Type.String(),
    appointment_capacity: Type.Integer(),
    appointment_capacity_left: Type.Integer(),
    customer_uuid: Type.String({ description: 'send as placeholder_id to create_appointment_with_consumer' }),
    customer_mobile: Nullable(Type.String()),
    customer_fullName: Nullable(Type.String()),
    customer_email: Nullable(Type.String()),
    customer_note: Nullable(Type.String()),
    state: Type.String(),
    formatedAddress: Type.String(),
    messages: Type.Array(Type.String()),
    pool_uuid: Type.Optional(
      Type.String({ description: 'booked through a pool: resource_uuid is the member assigned' }),
    ),
  }),
  appointments: Type.Array(
    Type.Object({
      uuid: Type.String(),
      kind: Type.String(),
      product_id: Type.String(),
      product_name: Type.String(),
      resource_id: Type.String(),
      from: Type.String(),
      to: Type.String(),
      state: Type.String(),
      capacity: Type.Integer(),
      capacity_left: Type.Integer(),
      customers: Type.Array(Customer),
    }),
  ),
});

// ---- A3 ----

export const BookQuery = Type.Object({
  timeFormat: Pattern('Java-style pattern of formattedStart/formattedEnd; default yyyy-MM-dd HH:mm'),
});

const SlotUuid = Uuid('the timeslot, or the appointment of an already booked slot');
export const BookBody = Type.Object(
  {
    start: IsoDateTime('ISO 8601, the start of a listed slot', 40),
    end: IsoDateTime('ISO 8601, the end of a listed slot', 40),
    timeslot_uuid: Type.Optional(SlotUuid),
    pool_uuid: Type.Optional(Uuid('for models.PoolBookable: the path names the pool, the member is assigned')),
    product_uuid: Type.Optional(Nullable(Uuid())),
    placeholder_id: Type.Optional(Nullable(Uuid('participation.customer_uuid of reserve_appointment'))),
    email: Type.String({ minLength: 1, maxLength: 254, format: 'email' }),
    firstname: Type.String({ minLength: 1, maxLength: 255 }),
    lastname: Type.String({ minLength: 1, maxLength: 255 }),
    mobile: OptText(50),
    message: OptText(1024, 'at most 1024 characters'),
    locale: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Za-z]{2}([_-][A-Za-z]{2})?$',
          description: 'language of the mails, e.g. de or en',
        }),
      ),
    ),
    channelKey: ChannelKeyQuery,
    answers: Type.Optional(
      Type.Unsafe<Record<string, string | boolean | null>>({
        type: 'object',
        maxProperties: 20,
        propertyNames: { type: 'string', pattern: QUESTION_KEY_PATTERN },
        additionalProperties: { anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'boolean' }, { type: 'null' }] },
        description:
          "answers to the product's questions (A4), by key: text for text, textarea, select (an option's value), " +
          'email and phone; true/false for checkbox',
      }),
    ),
  },
  exactlyOneOf('timeslot_uuid', 'pool_uuid'),
);

export const BookResponse = Enveloped({
  createdAppointment: Type.Object({
    ...slotMembers,
    appointment_uuid: Type.String(),
    cancelLink: Type.String({ description: 'signed URL with which the consumer cancels on their own' }),
    pool_uuid: Type.Optional(
      Type.String({ description: 'booked through a pool: resource_uuid is the member assigned' }),
    ),
  }),
});

// ---- reschedule (docs/lifecycle.md) ----

export const RescheduleParams = Type.Object({ token: LinkToken('the signed token of the cancel link') });

export const RescheduleBody = Type.Object(
  {
    start: BookBody.properties.start,
    end: BookBody.properties.end,
    timeslot_uuid: Type.Optional(SlotUuid),
    pool_uuid: Type.Optional(
      Uuid(
        'a booking made through a pool: that pool, and the pool picks the member free at the new time ' +
          '(a models.PoolBookable of its listing)',
      ),
    ),
    product_uuid: BookBody.properties.product_uuid,
  },
  exactlyOneOf('timeslot_uuid', 'pool_uuid'),
);

// ---- A4, A5 ----

const scopeMembers = {
  ref: Refs('resource references; repeatable'),
  tslRefs: Refs('timeslot or appointment references or UUIDs; repeatable'),
  channelKey: ChannelKeyQuery,
};
/** A4 and A5: at least one of ref and tslRefs (one object parameter in the document: `?ref=...&tslRefs=...`). */
export const ScopeQuery = QueryObject('scope', Type.Object(scopeMembers, atLeastOneOf('ref', 'tslRefs')));

export const ActiveProductsQuery = QueryObject(
  'scope',
  Type.Object(
    {
      ...scopeMembers,
      languageTag: Type.Optional(
        Type.String({
          maxLength: 35,
          pattern: LANGUAGE_TAG_PATTERN,
          description: "language of the questions' labels (de or en, e.g. en_GB); default: Accept-Language, else de",
        }),
      ),
    },
    atLeastOneOf('ref', 'tslRefs'),
  ),
);

const PublicQuestion = Type.Object({
  key: Type.String({ description: "the key of the answer in A3's answers" }),
  type: Type.String({ description: 'text, textarea, select, checkbox, email or phone' }),
  required: Type.Boolean(),
  label: Type.String({ description: "in the consumer's language" }),
  options: Type.Optional(
    Type.Array(Type.Object({ value: Type.String(), label: Type.String() }), { description: 'select only' }),
  ),
  maxLength: Type.Optional(Type.Integer({ description: 'the longest answer A3 takes (text, textarea, email, phone)' })),
});

export const ActiveProductsResponse = Enveloped({
  products: Type.Array(
    Type.Object({
      uuid: Type.String(),
      name: Type.String(),
      description: Type.String(),
      minDuration: Nullable(Type.Integer()),
      maxDuration: Nullable(Type.Integer()),
      leadTimeMinutes: Nullable(Type.Integer()),
      followUpTimeMinutes: Nullable(Type.Integer()),
      exclusive: Type.Boolean(),
      questions: Type.Array(PublicQuestion, {
        description: "booking questions (DESIGN 7.7); answered in A3's answers",
      }),
    }),
  ),
});

const OptString = Nullable(Type.String());

export const PublicDataResponse = Enveloped({
  contact: Type.Object({ name: OptString, email: OptString, mobile: OptString, phone: OptString }),
  resource: Type.Object({
    uuid: Type.String(),
    name: Type.String(),
    description: OptString,
    contactChannelType: OptString,
    msgHelpText: OptString,
    url: OptString,
    imgUrl: OptString,
  }),
  provider: Type.Object({
    name: Type.String(),
    description: OptString,
    isThemingAllowed: Type.Boolean(),
    isLocalisationAllowed: Type.Boolean(),
    areCustomFieldsAllowed: Type.Boolean(),
  }),
  channel: Type.Object({ bookingProcess: Type.String() }),
  pool: Type.Optional(
    Type.Object(
      {
        uuid: Type.String(),
        name: Type.String(),
        description: OptString,
        members: Type.Array(Type.Object({ uuid: Type.String(), name: Type.String() })),
      },
      { description: 'on a pool: the pool and its members to choose from; resource then describes the pool' },
    ),
  ),
});
