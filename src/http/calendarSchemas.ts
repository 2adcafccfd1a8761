import { Type } from '@fastify/type-provider-typebox';
import { MAX_URL_LENGTH } from '../net/destination.js';
import { Nullable } from './reply.js';
import { exactlyOneOf, HttpUrl, IsoDateTime, PathSegment, ProviderPath, StringEnum } from './requestSchema.js';

export const ProviderParams = ProviderPath({});
export const IdParams = ProviderPath({ id: PathSegment() });

const ResourceReference = Type.Optional(
  Nullable(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'one resource; omitted or null: every resource of the provider, also those created later',
    }),
  ),
);

export const ClosureBody = Type.Object(
  {
    resourceReference: ResourceReference,
    start: IsoDateTime("ISO 8601; without an offset, the provider's wall time"),
    end: IsoDateTime('after start, at most 400 days later'),
    reason: Type.Optional(
      Nullable(Type.String({ maxLength: 500, description: 'for the partner only; never shown to consumers' })),
    ),
  },
  { additionalProperties: false },
);

const closureMembers = {
  id: Type.String({ format: 'uuid' }),
  resourceReference: Nullable(Type.String()),
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  reason: Nullable(Type.String()),
};
export const Closure = Type.Object(closureMembers);
export const CreatedClosure = Type.Object({
  ...closureMembers,
  conflictingAppointments: Type.Array(Type.String(), {
    description: 'references of the live appointments inside the closure: they stay, the partner decides',
  }),
});

export const RangeQuery = Type.Object({
  from: Type.Optional(IsoDateTime('default now')),
  to: Type.Optional(IsoDateTime('optional end of the range')),
});

export const BusyTimesQuery = Type.Object({
  resourceReference: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'one resource (its own and the provider-wide busy times); omitted: all',
    }),
  ),
  from: Type.Optional(IsoDateTime('default now')),
  to: Type.Optional(IsoDateTime('default from + 31 days; at most 400 days after from')),
});

export const BusyTime = Type.Object({
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  source: StringEnum(['closure', 'subscription'] as const),
  sourceId: Type.String({ format: 'uuid', description: 'the closure or the calendar subscription' }),
});

/** What D6 and D9 add: the busy times their appointments meet (not refused: the partner decides). */
export const BusyOverlaps = Type.Array(BusyTime, {
  description: 'busy times (closures, subscribed calendars) the appointment meets, buffers counted; empty when none',
});

export const SubscriptionBody = Type.Object(
  {
    resourceReference: ResourceReference,
    url: Type.Optional(
      HttpUrl(
        'an iCalendar URL (https, http or webcal), e.g. the secret address Google, Outlook or iCloud publish; ' +
          'never shown again',
        MAX_URL_LENGTH,
        ['https', 'http', 'webcal', 'webcals'],
      ),
    ),
    caldav: Type.Optional(
      Type.Object(
        {
          url: HttpUrl('the CalDAV calendar collection (https or http)', MAX_URL_LENGTH, ['https', 'http']),
          username: Type.String({ maxLength: 255 }),
          password: Type.String({ maxLength: 1024, description: 'never shown again' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, ...exactlyOneOf('url', 'caldav') },
);

export const Subscription = Type.Object({
  id: Type.String({ format: 'uuid' }),
  resourceReference: Nullable(Type.String()),
  kind: StringEnum(['ics', 'caldav'] as const),
  host: Type.String({ description: "the calendar's host; the full URL and the password are never shown" }),
  status: StringEnum(['OK', 'ERROR'] as const, 'ERROR: the last read failed; the last good busy times stay in force'),
  lastSyncedAt: Nullable(Type.String({ format: 'date-time', description: 'the last good read' })),
  busyCount: Type.Integer({ description: 'busy intervals stored from the last good read' }),
  lastError: Nullable(Type.String({ description: 'why the last read failed' })),
  failingSince: Nullable(Type.String({ format: 'date-time' })),
});
