import { Type } from '@fastify/type-provider-typebox';
import { ASSIGNMENTS, DEFAULT_PRIORITY } from '../pools/pools.js';
import { Nullable } from './reply.js';
import { OptionalText, PathSegment, ProviderPath, StringEnum, Text } from './requestSchema.js';

export const PoolParams = ProviderPath({ poolRef: PathSegment() });

/** The rules of a pool's body that JSON Schema cannot state (pools/pools.ts checks them). */
export const POOL_BEYOND_SCHEMA = [
  'each member a resource of this provider (404 naming it)',
  'no resource named twice in members',
  "reference not a resource reference of the crm (409), and unique among the crm's pools (409)",
];

const Member = Type.Object(
  {
    resourceReference: Text(255, 'a resource of this provider'),
    priority: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 4, description: `0..4, 4 the highest; default ${DEFAULT_PRIORITY}` }),
    ),
  },
  { additionalProperties: false },
);

const poolFields = {
  publicName: Text(255, 'what consumers see: the name of "anyone" in the widget, resource_name in A1'),
  description: Type.Optional(Nullable(OptionalText(4000))),
  members: Type.Array(Member, {
    minItems: 1,
    maxItems: 100,
    description: '1 to 100 distinct resources; their order breaks the ties of every rule',
  }),
  assignment: Type.Optional(
    StringEnum(ASSIGNMENTS, 'how the member is picked: LEAST_RECENTLY_BOOKED (default), BALANCED or PRIORITY'),
  ),
};

export const PoolBody = Type.Object(
  {
    reference: Text(255, "unique in the crm, and no resource's reference"),
    ...poolFields,
  },
  { additionalProperties: false },
);
export const PoolChangeBody = Type.Object(
  { ...Type.Partial(Type.Object(poolFields)).properties },
  { additionalProperties: false, description: 'the fields to change; members replaces the list' },
);

export const Pool = Type.Object({
  reference: Type.String(),
  uuid: Type.String({ format: 'uuid' }),
  publicName: Type.String(),
  description: Nullable(Type.String()),
  members: Type.Array(Type.Object({ resourceReference: Type.String(), priority: Type.Integer() })),
  assignment: StringEnum(ASSIGNMENTS),
});
