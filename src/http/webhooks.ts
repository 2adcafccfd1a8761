import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as webhooks from '../webhooks/subscriptions.js';
import { Enveloped, envelope, errorResponses } from './reply.js';
import * as S from './webhookSchemas.js';

const tags = ['Webhooks'];
const security = [{ apiKey: [] }];
const CrmParams = Type.Object({ crmId: Type.String() });
const one = { 200: Enveloped({ webhook: S.Webhook }), ...errorResponses };
const withSecret = Enveloped({ webhook: S.WebhookWithSecret });
const accepted = { 202: Enveloped({}), ...errorResponses };

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/webhooks', {
    schema: { tags, security, summary: 'Subscribe to events (the secret is shown only here and on rotation)', params: CrmParams, body: S.WebhookBody,
      response: { 201: withSecret, ...errorResponses } },
  }, async (request, reply) => reply.status(201).send(envelope({ webhook: await webhooks.createWebhook(deps, request.crmId, request.body) })));

  app.get('/webhooks', {
    schema: { tags, security, summary: 'The crm\'s webhook subscriptions (no secrets)', params: CrmParams,
      response: { 200: Enveloped({ webhooks: Type.Array(S.Webhook) }), ...errorResponses } },
  }, async (request) => envelope({ webhooks: await webhooks.listWebhooks(deps, request.crmId) }));

  app.get('/webhooks/:id', {
    schema: { tags, security, summary: 'One webhook subscription', params: S.WebhookParams, response: one },
  }, async (request) => envelope({ webhook: await webhooks.getWebhook(deps, request.crmId, request.params.id) }));

  app.put('/webhooks/:id', {
    schema: { tags, security, summary: 'Change url, events, description or enabled (given fields only)', params: S.WebhookParams, body: S.WebhookUpdateBody, response: one },
  }, async (request) => envelope({ webhook: await webhooks.updateWebhook(deps, request.crmId, request.params.id, request.body) }));

  app.delete('/webhooks/:id', {
    schema: { tags, security, summary: 'Unsubscribe (pending deliveries are dropped)', params: S.WebhookParams, response: { 204: Type.Null(), ...errorResponses } },
  }, async (request, reply) => {
    await webhooks.deleteWebhook(deps, request.crmId, request.params.id);
    return reply.status(204).send(null);
  });

  app.post('/webhooks/:id/rotate-secret', {
    schema: { tags, security, summary: 'A new secret; for 24 h deliveries carry signatures with the old and the new one', params: S.WebhookParams,
      response: { 200: withSecret, ...errorResponses } },
  }, async (request) => envelope({ webhook: await webhooks.rotateSecret(deps, request.crmId, request.params.id) }));

  app.post('/webhooks/:id/test', {
    schema: { tags, security, summary: 'Deliver a webhook.test event to this subscription', params: S.WebhookParams,
      response: { 202: Enveloped({ eventId: Type.String() }), ...errorResponses } },
  }, async (request, reply) => reply.status(202).send(envelope(await webhooks.sendTestEvent(deps, request.crmId, request.params.id))));

  app.get('/webhooks/:id/deliveries', {
    schema: { tags, security, summary: 'Deliveries, newest first (one row per event, attempt = attempts so far)', params: S.WebhookParams,
      querystring: S.DeliveriesQuery, response: { 200: Enveloped({ deliveries: Type.Array(S.Delivery) }), ...errorResponses } },
  }, async (request) => envelope({ deliveries: await webhooks.listDeliveries(deps, request.crmId, request.params.id, request.query.limit ?? 100) }));

  app.post('/webhooks/:id/deliveries/:eventId/retry', {
    schema: { tags, security, summary: 'Send a FAILED delivery once more', params: S.DeliveryParams, response: accepted },
  }, async (request, reply) => {
    await webhooks.retryDelivery(deps, request.crmId, request.params.id, request.params.eventId);
    return reply.status(202).send(envelope({}));
  });
};
