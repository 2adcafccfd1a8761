/**
 * A2 on a pool, and the claim A3 on a pool shares (DESIGN 7.11, docs/pools.md): the member is
 * picked by the pool's rule and its place taken in one statement (claim_pool_place.sql).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import {
  PlaceRefused,
  runClaim,
  participationJson,
  type ClaimedPlace,
  type PlaceHolder,
} from '../scheduling/claimPlace.js';
import { readRequestSpan } from '../scheduling/time.js';
import type { Queryable } from '../storage/db.js';
import type { EventSource } from '../webhooks/events.js';
import { clientKey } from './clientKey.js';
import { slotTaken, slotText } from './claimSlot.js';
import { readPoolRequest, type PoolCandidate, type PoolRequest } from './poolRequest.js';
import { reservationView } from './reservationView.js';

export interface PoolClaim {
  request: PoolRequest;
  participation: PlaceHolder;
  now: Date;
  fields: { start: string; end: string };
  /** per member, the participation's state (A3: the member's booking process) */
  stateOf?: (resourceId: string) => PlaceHolder['state'];
  holdLimit?: { ip: string; max: number };
  listLive?: boolean;
  asyncCommit?: boolean;
  /** webhook source of the place's events (default public); null: the caller reports the change itself */
  source?: EventSource | null;
  /** reschedule: the participation it moves (claim_pool_place's p_moving) */
  moving?: string;
}

/** The kernel's refusals of a pool claim as the public flow words them. */
function poolRefusal(err: PlaceRefused, c: PoolClaim): DomainError {
  const zone = c.request.members.values().next().value?.resource.time_zone ?? 'UTC';
  const slot = `${c.fields.start}: ${slotText(c.request.start, c.request.end, zone)}`;
  switch (err.reason) {
    case 'HOLD_LIMIT':
      return new DomainError('HOLD_LIMIT', err.message);
    case 'DUPLICATE':
      return new DomainError('AppointmentAlreadyBookedException', `${slot} is booked by this consumer already`);
    case 'GONE':
      return notFound(`pool ${c.request.pool.reference} was deleted`);
    default:
      return slotTaken(`${slot} is taken on every member of pool ${c.request.pool.reference}; choose another slot`);
  }
}

/** Picks the member by the pool's rule and takes its place, in one statement. */
export async function claimPoolSlot(q: Queryable, c: PoolClaim): Promise<ClaimedPlace> {
  const candidates: (PoolCandidate & { state?: string })[] = c.request.candidates.map((x) =>
    c.stateOf ? { ...x, state: c.stateOf(x.resource_id) } : x,
  );
  try {
    return await runClaim(
      q,
      (p) =>
        `claim_pool_place(p_pool => ${p(c.request.pool.id)}, p_candidates => ${p(JSON.stringify(candidates))},
                          p_participation => ${p(JSON.stringify(participationJson(c.participation)))},
                          p_now => ${p(c.now)}, p_public_product => ${p(c.request.product.id)},
                          p_start => ${p(c.request.start)}, p_hold_ip => ${p(c.holdLimit?.ip ?? null)},
                          p_max_holds => ${p(c.holdLimit?.max ?? null)}, p_moving => ${p(c.moving ?? null)})`,
      { ...c, source: c.source === undefined ? 'public' : c.source },
    );
  } catch (err) {
    throw err instanceof PlaceRefused ? poolRefusal(err, c) : err;
  }
}

export interface PoolReserveInput {
  ref: string;
  poolUuid: string;
  channelKey: ChannelKey;
  productUuid: string;
  from: string;
  to: string;
  clientIp: string;
}

const FIELDS = { start: 'body.from', end: 'body.to' };

/** A2 on a pool: a hold on the member the pool's rule picks; it blocks that member only. */
export async function reservePool(deps: Deps, input: PoolReserveInput) {
  const span = readRequestSpan(input.from, input.to, FIELDS);
  const now = deps.clock.now();
  const request = await readPoolRequest(deps.db, {
    ref: input.ref,
    poolUuid: input.poolUuid,
    channelKey: input.channelKey,
    productUuid: input.productUuid,
    span,
    fields: FIELDS,
    now,
  });
  const client = clientKey(input.clientIp, deps.config.ipv6PrefixLength);
  const { pool } = request;
  const claim = await claimPoolSlot(deps.db, {
    request,
    now,
    fields: FIELDS,
    participation: {
      crmId: pool.crm_id,
      providerId: pool.provider_id,
      reference: `${randomUUID()}@booking`,
      customerId: null,
      state: 'RESERVED',
      holdUntil: new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000),
      clientIp: client,
      channelKey: input.channelKey,
    },
    holdLimit: { ip: client, max: deps.config.maxHoldsPerIp },
    listLive: true,
    asyncCommit: true,
  });
  const member = request.members.get(claim.appointment.resource_id!)!;
  const view = reservationView({ resource: member.resource, product: request.product, claim });
  return { ...view, participation: { ...view.participation, pool_uuid: pool.id } };
}
