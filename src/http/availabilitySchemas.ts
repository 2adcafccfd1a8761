import { Type } from '@fastify/type-provider-typebox';
import { WALL_END_PATTERN, WALL_TIME_PATTERN } from '../availability/wallClock.js';
import { Nullable } from './reply.js';
import { PathSegment, ProviderPath, RULE, StringEnum } from './requestSchema.js';

const Text = (description?: string) => Type.String({ minLength: 1, maxLength: 255, description });
/** A string schema with the words a 400 uses for its rule (reply.ts RULE) instead of the validator's. */
const Worded = (options: { pattern: string; description: string; maxLength: number }, rule: string) =>
  Type.String({ ...options, [RULE]: rule } as typeof options);
const WallTime = (pattern: string, description: string, rule: string) =>
  Worded({ pattern, description, maxLength: 5 }, rule);
const DATE = {
  format: 'date',
  pattern: '^[12][0-9]{3}-[0-9]{2}-[0-9]{2}$',
  [RULE]: 'must be a date such as 2026-06-01',
};
const RuleDate = (description: string) => Type.String({ ...DATE, description });
/** A date or null as one schema, not a union: a 400 says what a date must look like, not what two branches want. */
const RuleDateOrNull = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...DATE, description });

export const RuleParams = ProviderPath({ ruleRef: PathSegment() });

/** The rules of a rule's body that JSON Schema cannot state (availability/rules.ts checks them). */
export const RULE_BEYOND_SCHEMA = [
  'each window ends after it starts',
  'no window overlaps another (touching is fine)',
  'validUntil not before validFrom',
];

const Window = Type.Object(
  {
    from: WallTime(
      WALL_TIME_PATTERN,
      "HH:mm, the wall-clock start in the provider's zone",
      'must be a time of day HH:mm such as 09:00',
    ),
    to: WallTime(
      WALL_END_PATTERN,
      'HH:mm after from; 24:00 is the end of the day',
      'must be a time of day HH:mm such as 17:00, or 24:00',
    ),
  },
  { additionalProperties: false },
);

const ruleFields = {
  resourceReference: Text('the resource the timeslots are for'),
  weekdays: Type.Array(Type.String({ pattern: '^[1-7]$', description: '"1" (Monday) .. "7" (Sunday)' }), {
    minItems: 1,
    maxItems: 7,
    uniqueItems: true,
    description: 'ISO weekdays the windows open on',
  }),
  windows: Type.Array(Window, {
    minItems: 1,
    maxItems: 10,
    description: '1 to 10 windows of each such date, none overlapping another',
  }),
  raster: Type.Integer({ minimum: 1, maximum: 100_000, description: 'minutes per bookable slot' }),
  defaultCapacity: Type.Integer({ minimum: 0, maximum: 100_000 }),
  defaultAcceptBookings: Type.Optional(Type.Boolean({ description: 'default true' })),
  state: Type.Optional(
    StringEnum(['BOOKABLE', 'CREATED'] as const, 'BOOKABLE (public, the default) or CREATED (hidden)'),
  ),
  validFrom: Type.Optional(RuleDate('first date, default today; an earlier date counts from today')),
  validUntil: Type.Optional(RuleDateOrNull('last date, included; null or omitted: open-ended')),
};

export const RuleBody = Type.Object(
  { reference: Text("unique among the provider's rules"), ...ruleFields },
  { additionalProperties: false },
);
export const RuleChangeBody = Type.Object(
  { ...Type.Partial(Type.Object(ruleFields)).properties },
  {
    additionalProperties: false,
    description: 'the fields to change; the timeslots from today on are made again',
  },
);

const ruleMembers = {
  reference: Type.String(),
  uuid: Type.String({ format: 'uuid' }),
  resourceReference: Type.String(),
  weekdays: Type.Array(Type.String(), { description: 'ascending' }),
  windows: Type.Array(Type.Object({ from: Type.String(), to: Type.String() }), { description: 'in time order' }),
  raster: Type.Integer(),
  defaultCapacity: Type.Integer(),
  defaultAcceptBookings: Type.Boolean(),
  state: StringEnum(['BOOKABLE', 'CREATED'] as const),
  validFrom: Type.String({ format: 'date' }),
  validUntil: Nullable(Type.String({ format: 'date' })),
  publishedUntil: Type.String({
    format: 'date',
    description: 'timeslots are made up to this date; a daily job carries it forward',
  }),
};
export const Rule = Type.Object(ruleMembers);
export const WrittenRule = Type.Object({
  ...ruleMembers,
  timeslotsCreated: Type.Integer({ description: 'timeslots this request made' }),
});
export const KeptTimeslots = Type.Array(Type.String(), {
  description:
    'references of the timeslots kept as they were, on dates holding a live booking or ' +
    "a partner's appointment; empty when none",
});
