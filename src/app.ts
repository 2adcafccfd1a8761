import Fastify, { type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { settleLinkSecret } from './notifications/cancelToken.js';
import type { Clock, Deps } from './context.js';
import { createListingState } from './listing/state.js';
import { systemClock } from './context.js';
import type { Db } from './storage/db.js';
import {
  answerUnroutedFirst,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  registerErrorHandling,
  RouteMethods,
} from './http/errors.js';
import { validatorCompiler } from './http/validation.js';
import { requireApiKey } from './http/auth.js';
import { registerJsonParser } from './http/jsonParser.js';
import { drainBodyBeforeAnswer } from './http/bodyDrain.js';
import { applyRequestConventions, documentQueryObjects } from './http/requestSchema.js';
import { healthRoutes } from './http/health.js';
import { partnerRoutes } from './http/partners.js';
import { offeringRoutes } from './http/offerings.js';
import { schedulingRoutes } from './http/scheduling.js';
import { publicRoutes } from './http/public.js';
import { cancelRoutes } from './http/cancel.js';
import { myBookingsPageRoutes, myBookingsRoutes } from './http/myBookings.js';
import { requestRoutes } from './http/requests.js';
import { feedPartnerRoutes, feedRoutes } from './http/feeds.js';
import { calendarRoutes } from './http/calendars.js';
import { availabilityRoutes } from './http/availability.js';
import { poolRoutes } from './http/pools.js';
import { widgetRoutes } from './http/widget.js';
import { canonicalHostRedirect } from './http/canonicalHost.js';
import { registerMetrics } from './http/metrics.js';
import { registerRateLimits } from './http/rateLimits.js';
import { COMPRESS_THRESHOLD_BYTES } from './http/representation.js';
import { Lifecycle } from './lifecycle.js';
import type { SharedCounters } from './storage/redis.js';
import { webhookRoutes } from './http/webhooks.js';
import { privacyRoutes } from './http/privacy.js';
import { loggerOptions } from './http/logging.js';
import { webhookDocs } from './http/webhookSchemas.js';
import { finishDocument } from './http/openapi.js';
import { applyDefaultReminders } from './booking/reminders.js';

export interface AppDeps {
  config: Config;
  db: Db;
  clock?: Clock;
  /** a pino logger or logger options; tests pass false */
  logger?: boolean | object;
  /** Redis for the counters all instances share (REDIS_URL); undefined: in-process counters */
  counters?: SharedCounters;
  /** main.ts drains through it on SIGTERM */
  lifecycle?: Lifecycle;
  /** called before any plugin or route is registered (the tests add their contract checks here) */
  instrument?: (app: FastifyInstance) => void;
  /** where A1 reads (the instance's listing connections); default db */
  listingDb?: Db;
}

export type App = FastifyInstance;

const API_DESCRIPTION =
  'Partner operations under /crms/{crmId} take the API key in X-SERVICE-CLIENT-ID; the consumer booking flow, ' +
  'the links and the feeds are public. Every error answers ' +
  '{"api-info":{"version":"1"},"errors":[{"errorCode","message"}]}. ' +
  'What a request may hold is its schema: every text is free of NUL characters (U+0000), times are ISO 8601 ' +
  '(format iso-date-time: a date, or a date-time to the minute or finer, with or without an offset; without one, ' +
  "the wall clock in the provider's time zone). Members and query parameters an operation does not name are ignored. " +
  "A rule the schema cannot state is named in the operation's description, and its 400 names the field.";

/** Builds the whole HTTP application. Never listens: main.ts and tests decide that. */
export async function buildApp({
  config,
  db,
  clock = systemClock,
  logger,
  counters,
  lifecycle = new Lifecycle(),
  instrument,
  listingDb = db,
}: AppDeps): Promise<App> {
  const app = Fastify({
    logger: logger ?? loggerOptions(config.logLevel),
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    trustProxy: config.trustProxy,
    ajv: { customOptions: { removeAdditional: false } },
    frameworkErrors,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // every path and its methods, so that a known path asked with another method answers 405
  const routeMethods = new RouteMethods();
  app.addHook('onRoute', (route) => routeMethods.add(route.url, route.method));
  applyRequestConventions(app);
  instrument?.(app);
  counters?.reportTo(app.log);

  await settleLinkSecret(db, config);
  const deps: Deps = { db, config, clock };
  const listing = createListingState(listingDb, clock, config.listingCacheBytes);
  await applyDefaultReminders(db, config);

  // answers of 1 KiB or more in br or gzip as the client accepts; request bodies are taken as sent (no decompression)
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD_BYTES,
    globalDecompression: false,
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      webhooks: webhookDocs,
      info: {
        title: 'Appointment booking and scheduling service',
        version: '1',
        description: API_DESCRIPTION,
        // the project's own, not published under a licence: no terms are granted (docs/decisions.md)
        license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.publicBaseUrl, description: 'PUBLIC_BASE_URL of this instance' }],
      security: [{ apiKey: [] }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-SERVICE-CLIENT-ID' } },
      },
    },
    transform: documentQueryObjects as never,
    transformObject: (documents) =>
      finishDocument(
        ('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject) as Record<string, unknown>,
      ) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['operations'],
        security: [],
        operationId: 'getOpenApiDocument',
        summary: 'this document (OpenAPI 3.1)',
        response: {
          200: {
            description: 'the document',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          },
        },
      },
    },
    async () => app.swagger() as unknown as Record<string, unknown>,
  );

  registerErrorHandling(app, routeMethods);
  drainBodyBeforeAnswer(app);
  registerJsonParser(app);
  canonicalHostRedirect(app, config);
  registerMetrics(app);
  await registerRateLimits(app, counters, config.ipv6PrefixLength);
  answerUnroutedFirst(app, routeMethods);
  app.addHook('onRequest', (_request, reply, done) => {
    if (lifecycle.draining) reply.header('connection', 'close');
    done();
  });

  await app.register(healthRoutes, { deps, lifecycle, counters });
  await app.register(
    async (crm) => {
      requireApiKey(crm, db);
      await crm.register(partnerRoutes, { deps });
      await crm.register(offeringRoutes, { deps });
      await crm.register(schedulingRoutes, { deps });
      await crm.register(availabilityRoutes, { deps });
      await crm.register(poolRoutes, { deps });
      await crm.register(feedPartnerRoutes, { deps });
      await crm.register(calendarRoutes, { deps });
      await crm.register(webhookRoutes, { deps });
      await crm.register(privacyRoutes, { deps });
    },
    { prefix: '/crms/:crmId' },
  );
  await app.register(publicRoutes, { deps, listing });
  await app.register(cancelRoutes, { deps });
  await app.register(myBookingsRoutes, { deps });
  await app.register(myBookingsPageRoutes, { deps });
  await app.register(requestRoutes, { deps });
  await app.register(feedRoutes, { deps });
  await app.register(widgetRoutes, { deps });
  return app;
}
