import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import {
  EVENT_TYPES,
  PARTICIPATION_EVENT_TYPES,
  APPOINTMENT_EVENT_TYPES,
  CALENDAR_EVENT_TYPES,
} from '../webhooks/events.js';
import { MAX_URL_LENGTH } from '../net/destination.js';
import { Nullable } from './reply.js';
import { CrmPath, HttpUrl, StringEnum } from './requestSchema.js';
import { Answers } from './schedulingSchemas.js';

const EventTypeSchema = StringEnum(EVENT_TYPES);
const Url = HttpUrl(
  'http or https; loopback, private, link-local and multicast destinations are refused',
  MAX_URL_LENGTH,
);
const Events = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length * 2,
  description: 'the event types to receive (at least one); omit or null for every type',
});
const Description = Type.String({ maxLength: 1000 });

export const WebhookParams = CrmPath({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = CrmPath({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  eventId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const WebhookBody = Type.Object(
  { url: Url, events: Type.Optional(Nullable(Events)), description: Type.Optional(Nullable(Description)) },
  { additionalProperties: false },
);

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Nullable(Events)),
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'the given fields only; events null: every type again' },
);

const webhookMembers = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(EventTypeSchema),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
};
export const Webhook = Type.Object(webhookMembers);
export const WebhookWithSecret = Type.Object({
  ...webhookMembers,
  secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes; shown only when created and when rotated' }),
});

export const Delivery = Type.Object({
  eventId: Type.String({ description: 'the webhook-id header of every attempt' }),
  type: EventTypeSchema,
  attempt: Type.Integer({ description: 'attempts so far' }),
  status: StringEnum(['PENDING', 'SUCCEEDED', 'FAILED'] as const),
  responseStatus: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  at: Type.String({ format: 'date-time', description: 'the last attempt (or when the event was written, before any)' }),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
});

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

// ---- what is delivered (the OpenAPI `webhooks` section) ----

const Instant = Type.String({ format: 'date-time', description: 'ISO 8601 with the offset of the provider zone' });
const Source = StringEnum(['public', 'partner', 'cancel-link', 'decision-link', 'expiry'] as const);
const State = StringEnum(['RESERVED', 'REQUESTED', 'BOOKED', 'CANCELED', 'DELETED'] as const);
const AppointmentData = Type.Object({
  reference: Type.String(),
  uuid: Type.String({ format: 'uuid' }),
  start: Instant,
  end: Instant,
  resourceReference: Nullable(Type.String()),
  productReference: Nullable(Type.String()),
  capacity: Type.Integer(),
  capacityLeft: Type.Integer({ description: 'as of the change' }),
});
const ParticipationData = Type.Object({
  crmId: Type.String(),
  providerReference: Type.String(),
  poolReference: Nullable(
    Type.String({ description: 'the pool it was booked through (appointment names the member); null otherwise' }),
  ),
  source: Source,
  participation: Type.Object({
    reference: Type.String(),
    uuid: Type.String({ format: 'uuid' }),
    state: State,
    previousState: Nullable(State),
    message: Nullable(Type.String()),
    answers: Answers,
  }),
  appointment: AppointmentData,
  customer: Nullable(
    Type.Object({
      reference: Type.String(),
      name: Nullable(Type.String()),
      email: Nullable(Type.String()),
      mobile: Nullable(Type.String()),
    }),
  ),
});
const AppointmentEventData = Type.Object({
  crmId: Type.String(),
  providerReference: Type.String(),
  source: Source,
  appointment: AppointmentData,
});
const CalendarEventData = Type.Object({
  crmId: Type.String(),
  subscriptionId: Type.String({ format: 'uuid' }),
  providerReference: Type.String(),
  resourceReference: Nullable(Type.String()),
  kind: StringEnum(['ics', 'caldav'] as const),
  host: Type.String({ description: "the calendar's host; never its full URL" }),
  at: Type.String({ format: 'date-time', description: 'when the read failed, or read again' }),
  error: Type.Optional(Type.String({ description: 'calendar.sync_failed: why the read failed' })),
  failingSince: Type.Optional(
    Type.String({ format: 'date-time', description: 'calendar.sync_recovered: since when it had failed' }),
  ),
});
const Count = Type.Integer({ minimum: 0 });
/** The counts of an erasure (POST /crms/{crmId}/consumer-data/erase); shared with that answer. */
export const ErasedCounts = Type.Object(
  {
    users: Count,
    customers: Count,
    participations: Count,
    mails: Count,
    webhookEvents: Count,
    idempotencyRecords: Count,
  },
  {
    description:
      'what was erased: users deleted or anonymized, customers anonymized, ' +
      'participations made anonymous places, mails dropped or scrubbed, webhook events scrubbed, ' +
      'stored idempotent answers deleted',
  },
);
const ErasedData = Type.Object({
  crmId: Type.String(),
  source: StringEnum(
    ['partner', 'retention'] as const,
    'partner: POST .../consumer-data/erase; retention: PERSONAL_DATA_RETENTION_DAYS',
  ),
  erased: ErasedCounts,
});
const TestData = Type.Object({
  crmId: Type.String(),
  webhookId: Type.String({ format: 'uuid' }),
  message: Type.String(),
});

const eventBody = (type: string, data: TSchema) =>
  Type.Object({
    type: Type.Literal(type),
    timestamp: Type.String({ format: 'date-time', description: 'when the change happened' }),
    data,
  });

const HEADERS = {
  'webhook-id': {
    required: true,
    schema: { type: 'string' },
    description: 'the event id: the same on every attempt; dedupe by it',
  },
  'webhook-timestamp': { required: true, schema: { type: 'string' }, description: 'Unix seconds of this attempt' },
  'webhook-signature': {
    required: true,
    schema: { type: 'string' },
    description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">, space-separated while a rotated secret is valid',
  },
};

/** participation.booked -> participationBooked */
const operationIdOf = (type: string) => type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase());

function webhookOperation(type: string, data: TSchema, summary: string) {
  return {
    post: {
      operationId: operationIdOf(type),
      summary,
      // the service signs the body (webhook-signature); the receiver needs no key of ours
      security: [],
      description: 'Standard Webhooks 1.0; see docs/webhooks.md. Answer 2xx within 10 s, else it is retried.',
      parameters: Object.entries(HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
      requestBody: { required: true, content: { 'application/json': { schema: eventBody(type, data) } } },
      responses: {
        '2XX': { description: 'received' },
        '4XX': {
          description: 'refused: delivered again later with backoff, like any answer other than 2xx (docs/webhooks.md)',
        },
      },
    },
  };
}

const SUMMARIES: Record<string, string> = {
  'participation.reserved': 'A place is held (A2, or D9 RESERVED)',
  'participation.requested': "A booking awaits the provider's decision",
  'participation.booked': 'A participation is booked',
  'participation.canceled':
    "A participation is cancelled (by the partner, the consumer's cancel link, a decline, or hold expiry)",
  'participation.deleted': 'A participation is deleted',
  'participation.rescheduled': 'A participation moved to another slot',
  'appointment.created': 'An appointment is created (D6, or by the public flow for a slot)',
  'appointment.cancelled': 'An appointment is cancelled (D8)',
  'calendar.sync_failed':
    'A subscribed calendar could not be read; its last good busy times stay in force (once per outage)',
  'calendar.sync_recovered': 'A subscribed calendar that had failed was read again',
};

/** The OpenAPI 3.1 `webhooks` section: one operation and body schema per event type. */
export const webhookDocs = Object.fromEntries([
  ...PARTICIPATION_EVENT_TYPES.map((t) => [t, webhookOperation(t, ParticipationData, SUMMARIES[t])]),
  ...APPOINTMENT_EVENT_TYPES.map((t) => [t, webhookOperation(t, AppointmentEventData, SUMMARIES[t])]),
  ...CALENDAR_EVENT_TYPES.map((t) => [t, webhookOperation(t, CalendarEventData, SUMMARIES[t])]),
  [
    'consumer.erased',
    webhookOperation(
      'consumer.erased',
      ErasedData,
      "A person's data was erased (docs/privacy.md); the counts only, no personal data",
    ),
  ],
  ['webhook.test', webhookOperation('webhook.test', TestData, 'Sent by POST /crms/{crmId}/webhooks/{id}/test')],
]) as Record<string, OpenAPIV3_1.PathItemObject>;
