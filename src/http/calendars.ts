import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { listBusyTimes } from '../calendars/busyTimes.js';
import { createClosure, deleteClosure, listClosures } from '../calendars/closures.js';
import * as subscriptions from '../calendars/subscriptions.js';
import { BODY_ERRORS, Enveloped, envelope, errorReplies, partnerErrors } from './reply.js';
import * as S from './calendarSchemas.js';
import { beyondSchema } from './requestSchema.js';
import { MAX_CLOSURE_DAYS } from '../calendars/closures.js';
import { MAX_RANGE_DAYS } from '../calendars/busyTimes.js';
import { REFUSED_RULE } from '../net/destination.js';

const tags = ['Busy times'];
const security = [{ apiKey: [] }];
// the rules the schemas cannot state
const DESCRIPTIONS = {
  createClosure: beyondSchema('', `end after start, at most ${MAX_CLOSURE_DAYS} days later`),
  listClosures: beyondSchema('', 'to after from'),
  listBusyTimes: beyondSchema('', `to after from, at most ${MAX_RANGE_DAYS} days later`),
  createCalendarSubscription: beyondSchema(
    '',
    `a host that is not, and does not resolve to, a refused address (${REFUSED_RULE}; ` +
      'CALENDAR_ALLOW_PRIVATE_NETWORKS lifts it): 400 CALENDAR_URL_NOT_ALLOWED',
  ),
};

/** Partner endpoints under /crms/{crmId}: closures, busy times, calendar subscriptions (DESIGN.md §7.6). */
export const calendarRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const p = '/provider/:providerRef';

  app.post(
    `${p}/closures`,
    {
      schema: {
        tags,
        security,
        operationId: 'createClosure',
        summary: 'close the provider, or one resource, for a while (blocks at once)',
        description: DESCRIPTIONS.createClosure,
        params: S.ProviderParams,
        body: S.ClosureBody,
        response: { 201: Enveloped({ closure: S.CreatedClosure }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const { conflictingAppointments, ...closure } = await createClosure(
        deps,
        request.crmId,
        request.params.providerRef,
        request.body,
      );
      return reply.status(201).send(envelope({ closure: { ...closure, conflictingAppointments } }));
    },
  );

  app.get(
    `${p}/closures`,
    {
      schema: {
        tags,
        security,
        operationId: 'listClosures',
        summary: "the provider's closures ending after from (default now)",
        description: DESCRIPTIONS.listClosures,
        params: S.ProviderParams,
        querystring: S.RangeQuery,
        response: { 200: Enveloped({ closures: Type.Array(S.Closure) }), ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({ closures: await listClosures(deps, request.crmId, request.params.providerRef, request.query) }),
  );

  app.delete(
    `${p}/closures/:id`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteClosure',
        summary: 'remove a closure (its time is free at once)',
        params: S.IdParams,
        response: { 204: Type.Null({ description: 'removed' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await deleteClosure(deps, request.crmId, request.params.providerRef, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    `${p}/busy-times`,
    {
      schema: {
        tags,
        security,
        operationId: 'listBusyTimes',
        summary: 'every busy time (closures and subscribed calendars) in [from, to), without summaries',
        description: DESCRIPTIONS.listBusyTimes,
        params: S.ProviderParams,
        querystring: S.BusyTimesQuery,
        response: { 200: Enveloped({ busyTimes: Type.Array(S.BusyTime) }), ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({ busyTimes: await listBusyTimes(deps, request.crmId, request.params.providerRef, request.query) }),
  );

  const subscription = Enveloped({ subscription: S.Subscription });

  app.post(
    `${p}/calendar-subscriptions`,
    {
      schema: {
        tags,
        security,
        operationId: 'createCalendarSubscription',
        summary:
          "subscribe to the provider's calendar (read before answering; nothing is stored when it cannot be read)",
        description: DESCRIPTIONS.createCalendarSubscription,
        params: S.ProviderParams,
        body: S.SubscriptionBody,
        response: { 201: subscription, ...partnerErrors(...BODY_ERRORS), ...errorReplies(422) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        envelope({
          subscription: await subscriptions.createSubscription(
            deps,
            request.crmId,
            request.params.providerRef,
            request.body,
          ),
        }),
      ),
  );

  app.get(
    `${p}/calendar-subscriptions`,
    {
      schema: {
        tags,
        security,
        operationId: 'listCalendarSubscriptions',
        summary: "the provider's calendar subscriptions (no URLs, no passwords)",
        params: S.ProviderParams,
        response: { 200: Enveloped({ subscriptions: Type.Array(S.Subscription) }), ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({
        subscriptions: await subscriptions.listSubscriptions(deps, request.crmId, request.params.providerRef),
      }),
  );

  app.get(
    `${p}/calendar-subscriptions/:id`,
    {
      schema: {
        tags,
        security,
        operationId: 'getCalendarSubscription',
        summary: 'one calendar subscription',
        params: S.IdParams,
        response: { 200: subscription, ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({
        subscription: await subscriptions.getSubscription(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.id,
        ),
      }),
  );

  app.delete(
    `${p}/calendar-subscriptions/:id`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteCalendarSubscription',
        summary: 'unsubscribe: its busy times stop blocking at once',
        params: S.IdParams,
        response: { 204: Type.Null({ description: 'removed' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await subscriptions.deleteSubscription(deps, request.crmId, request.params.providerRef, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${p}/calendar-subscriptions/:id/sync`,
    {
      schema: {
        tags,
        security,
        operationId: 'syncCalendarSubscription',
        summary: 'read the calendar now; answers its state after the read (status ERROR and lastError when it failed)',
        params: S.IdParams,
        response: { 200: subscription, ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request) =>
      envelope({
        subscription: await subscriptions.syncNow(deps, request.crmId, request.params.providerRef, request.params.id),
      }),
  );
};
