import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { clientKey } from '../booking/clientKey.js';
import { DomainError } from '../errors.js';
import type { SharedCounters } from '../storage/redis.js';

/**
 * @fastify/rate-limit for the whole app, applied only to routes that set `config.rateLimit` (a fixed
 * window per route and client address). With Redis every instance counts in the same keys, so N
 * instances allow a limit once; without it each process counts alone. A Redis error lets the
 * request through (skipOnError): a lost Redis costs the limits, never the service. The client is
 * counted as the hold cap counts it (clientKey: IPv4 per address, IPv6 per IPV6_PREFIX_LENGTH network).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  counters: SharedCounters | undefined,
  ipv6PrefixLength: number,
): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => clientKey(request.ip, ipv6PrefixLength),
    ...(counters ? { redis: counters.client, nameSpace: `${counters.keyPrefix}rate-limit:`, skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) =>
      new DomainError(
        'RATE_LIMITED',
        `too many requests from this address (at most ${context.max} per minute); retry in ${context.after}`,
      ),
  });
}
