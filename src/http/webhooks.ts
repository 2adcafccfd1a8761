import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as webhooks from '../webhooks/subscriptions.js';
import { BODY_ERRORS, Enveloped, envelope, errorReplies, partnerErrors } from './reply.js';
import * as S from './webhookSchemas.js';
import { beyondSchema, CrmPath } from './requestSchema.js';
import { REFUSED_RULE } from '../net/destination.js';

const tags = ['Webhooks'];
const security = [{ apiKey: [] }];
const CrmParams = CrmPath({});
const one = { 200: Enveloped({ webhook: S.Webhook }), ...partnerErrors() };
const withSecret = Enveloped({ webhook: S.WebhookWithSecret });
/** the crm's own collection: nothing to find, so never 404 */
const collectionErrors = errorReplies(400, 401, 403);
/** What the schema cannot state about url. */
const URL_RULE = beyondSchema(
  '',
  `url a host that is not, and does not resolve to, a refused address (${REFUSED_RULE}; ` +
    'WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts it)',
);

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        operationId: 'createWebhook',
        summary: 'Subscribe to events (the secret is shown only here and on rotation)',
        params: CrmParams,
        body: S.WebhookBody,
        description: URL_RULE,
        response: { 201: withSecret, ...collectionErrors, ...errorReplies(...BODY_ERRORS) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(envelope({ webhook: await webhooks.createWebhook(deps, request.crmId, request.body) })),
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        operationId: 'listWebhooks',
        summary: "The crm's webhook subscriptions (no secrets)",
        params: CrmParams,
        response: { 200: Enveloped({ webhooks: Type.Array(S.Webhook) }), ...errorReplies(401, 403) },
      },
    },
    async (request) => envelope({ webhooks: await webhooks.listWebhooks(deps, request.crmId) }),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getWebhook',
        summary: 'One webhook subscription',
        params: S.WebhookParams,
        response: one,
      },
    },
    async (request) => envelope({ webhook: await webhooks.getWebhook(deps, request.crmId, request.params.id) }),
  );

  app.put(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'updateWebhook',
        summary: 'Change url, events, description or enabled (given fields only)',
        description: URL_RULE,
        params: S.WebhookParams,
        body: S.WebhookUpdateBody,
        response: { ...one, ...errorReplies(...BODY_ERRORS) },
      },
    },
    async (request) =>
      envelope({ webhook: await webhooks.updateWebhook(deps, request.crmId, request.params.id, request.body) }),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'deleteWebhook',
        summary: 'Unsubscribe (pending deliveries are dropped)',
        params: S.WebhookParams,
        response: { 204: Type.Null({ description: 'unsubscribed' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(deps, request.crmId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        security,
        operationId: 'rotateWebhookSecret',
        summary: 'A new secret; for 24 h deliveries carry signatures with the old and the new one',
        params: S.WebhookParams,
        response: { 200: withSecret, ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request) => envelope({ webhook: await webhooks.rotateSecret(deps, request.crmId, request.params.id) }),
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        security,
        operationId: 'sendWebhookTest',
        summary: 'Deliver a webhook.test event to this subscription',
        params: S.WebhookParams,
        response: { 202: Enveloped({ eventId: Type.String() }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(envelope(await webhooks.sendTestEvent(deps, request.crmId, request.params.id))),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        security,
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries, newest first (one row per event, attempt = attempts so far)',
        params: S.WebhookParams,
        querystring: S.DeliveriesQuery,
        response: { 200: Enveloped({ deliveries: Type.Array(S.Delivery) }), ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({
        deliveries: await webhooks.listDeliveries(deps, request.crmId, request.params.id, request.query.limit ?? 100),
      }),
  );

  app.post(
    '/webhooks/:id/deliveries/:eventId/retry',
    {
      schema: {
        tags,
        security,
        operationId: 'retryWebhookDelivery',
        summary: 'Send a FAILED delivery once more',
        params: S.DeliveryParams,
        response: { 202: Enveloped({}), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await webhooks.retryDelivery(deps, request.crmId, request.params.id, request.params.eventId);
      return reply.status(202).send(envelope({}));
    },
  );
};
