import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { createFeed, listFeeds, revokeFeed } from '../feeds/feeds.js';
import { FeedCache, serveFeed } from '../feeds/serveFeed.js';
import { addVary, notModified, SHARED_CACHE_HEADERS } from './representation.js';
import { mailLocale } from '../notifications/format.js';
import { BODY_ERRORS, Enveloped, envelope, errorReplies, partnerErrors, Nullable } from './reply.js';
import { noBodyAsEmpty, PathSegment, ProviderPath } from './requestSchema.js';

const tags = ['Calendar feeds'];
const security = [{ apiKey: [] }];

const ProviderParams = ProviderPath({});
const FeedParams = ProviderPath({ id: PathSegment('the feed id') });
const CreateBody = Type.Object({
  resourceReference: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          "one resource's appointments; omitted or null: every resource of the provider, also those created later",
      }),
    ),
  ),
});
const feedMembers = {
  id: Type.String({ format: 'uuid' }),
  resourceReference: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
};
const CreatedFeed = Type.Object({
  ...feedMembers,
  url: Type.String({ description: 'PUBLIC_BASE_URL/feeds/{token}.ics; shown only here (the token is stored hashed)' }),
});
const ListedFeed = Type.Object(feedMembers, {
  description: 'a feed without its URL, which only the create answer shows',
});

/** Partner endpoints under /crms/{crmId}: create, list and revoke a provider's feeds. */
export const feedPartnerRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/provider/:providerRef/calendar-feeds',
    {
      schema: {
        tags,
        security,
        operationId: 'createCalendarFeed',
        summary: 'create a calendar feed of the provider or of one resource',
        params: ProviderParams,
        body: CreateBody,
        'x-body-optional': true,
        response: { 201: Enveloped({ feed: CreatedFeed }), ...partnerErrors(...BODY_ERRORS) },
      },
      // no body at all is a feed of the whole provider
      preValidation: noBodyAsEmpty,
    },
    async (request, reply) => {
      const feed = await createFeed(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(201).send(envelope({ feed }));
    },
  );

  app.get(
    '/provider/:providerRef/calendar-feeds',
    {
      schema: {
        tags,
        security,
        operationId: 'listCalendarFeeds',
        summary: "list the provider's calendar feeds",
        params: ProviderParams,
        response: { 200: Enveloped({ feeds: Type.Array(ListedFeed) }), ...partnerErrors() },
      },
    },
    async (request) => envelope({ feeds: await listFeeds(deps, request.crmId, request.params.providerRef) }),
  );

  app.delete(
    '/provider/:providerRef/calendar-feeds/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'revokeCalendarFeed',
        summary: 'revoke a calendar feed: its URL answers 404 from now on',
        params: FeedParams,
        response: { 204: Type.Null({ description: 'revoked' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await revokeFeed(deps, request.crmId, request.params.providerRef, request.params.id);
      return reply.status(204).send(null);
    },
  );
};

const FileParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 200, description: '{token}.ics' }) });
const FeedQuery = Type.Object({
  lang: Type.Optional(
    Type.String({
      maxLength: 35,
      description:
        'de (default) or en: the words in SUMMARY and DESCRIPTION; another language of at most 35 characters gives de',
    }),
  ),
});

/** The feed URL itself: no key, the token in the path is the authorization. */
export const feedRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const cache = new FeedCache();
  app.get(
    '/feeds/:file',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getCalendarFeed',
        summary: 'the feed (RFC 5545 text/calendar); If-None-Match with its ETag gives 304',
        params: FileParams,
        querystring: FeedQuery,
        response: {
          200: { description: 'the calendar', content: { 'text/calendar': { schema: Type.String() } } },
          304: { description: 'unchanged since the ETag given in If-None-Match', type: 'null' },
          ...errorReplies(400, 404),
        },
      },
    },
    async (request, reply) => {
      const token = request.params.file.endsWith('.ics') ? request.params.file.slice(0, -4) : '';
      const feed = await serveFeed(deps, cache, token, mailLocale(request.query.lang));
      // the URL is a secret and the content personal: a shared cache keys it by that URL and keeps it a
      // second (a revoked or erased feed outlives its revocation there by about as long: docs/privacy.md)
      reply
        .header('etag', feed.etag)
        .headers(SHARED_CACHE_HEADERS)
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex');
      // also on an answer sent uncompressed, so a shared cache keeps one entry per encoding (lower
      // case: @fastify/compress adds its own unless it finds exactly this)
      addVary(reply, 'accept-encoding');
      // no payload at all: send(null) would announce a body ("null", Content-Length 4) that a 304 never has
      if (notModified(request.headers['if-none-match'], feed.etag)) return reply.status(304).send(undefined as never);
      return reply
        .type('text/calendar; charset=utf-8')
        .header('content-disposition', 'inline; filename="calendar.ics"')
        .send(feed.body);
    },
  );
};
