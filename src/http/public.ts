import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createAppointmentWithConsumer } from '../booking/book.js';
import { bookPool } from '../booking/poolBook.js';
import { reservePool } from '../booking/poolBooking.js';
import { activeProducts, publicData } from '../booking/publicOfferings.js';
import { reserveAppointment } from '../booking/reserve.js';
import { rescheduleByToken } from '../booking/reschedule.js';
import { upcomingBookablesOrPool } from '../listing/upcomingBookables.js';
import type { ListingState } from '../listing/state.js';
import type { Deps } from '../context.js';
import { publicCors } from './cors.js';
import { answerWithin, idempotencyHooks } from './idempotency.js';
import {
  ActiveProductsQuery,
  ActiveProductsResponse,
  BookBody,
  BookQuery,
  BookResponse,
  bookingErrors,
  IdempotencyHeaders,
  PublicDataResponse,
  scopeErrors,
  RefParams,
  ReserveBody,
  ReserveQuery,
  ReserveResponse,
  RescheduleBody,
  RescheduleParams,
  ScopeQuery,
  UpcomingQuery,
  UpcomingResponse,
} from './publicSchemas.js';
import { envelope, errorReplies } from './reply.js';
import { beyondSchema } from './requestSchema.js';
import { SHARED_CACHE_HEADERS, sendCachedJson } from './representation.js';

const UpcomingHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'the ETag of a listing the client has: 304 while it is still the current one' }),
  ),
});

const PATHS = {
  upcoming: '/resources/:ref/upcoming_bookables',
  reserve: '/rest/1/resources/:ref/reserve_appointment',
  create: '/resources/:ref/create_appointment_with_consumer',
  products: '/products/active_products',
  publicData: '/resources/public_data',
  reschedule: '/rest/1/bookings/:token/reschedule',
};

// the rules of the booking flow the schemas cannot state: they depend on what the resource offers
const AMBIGUOUS =
  'a short reference (resourceId@platform) must name a resource of one provider only: ' +
  'else use resourceId@providerUuid@platform or the UUID';
const SLOT = [
  'the end after the start',
  'start and end those of a listed slot (of the timeslot, or of the appointment that slot became)',
  'product_uuid a product of the resource on the channel (required when it offers several)',
];
const DESCRIPTIONS = {
  upcoming: (lead: string) => beyondSchema(lead, AMBIGUOUS),
  reserve: beyondSchema('', ...SLOT, AMBIGUOUS),
  create: beyondSchema(
    '409 CONSUMER_LIMIT: the consumer (by e-mail) has as many upcoming bookings at the provider as its ' +
      "maxUpcomingBookingsPerConsumer allows; a reservation stays. 412 BOOKING_LIMIT: the slot's date or week " +
      "is at the resource's bookingLimits.",
    ...SLOT,
    'placeholder_id, while its hold lives, a reservation of this very slot',
    "answers as the product's questions ask (A4): the required ones, select values among the options, lengths, " +
      'email and phone forms, no other keys',
    "mobile a phone number some country's numbering plan allows (read for the provider's country when it has " +
      'no country code)',
    AMBIGUOUS,
  ),
  reschedule: beyondSchema(
    '',
    ...SLOT,
    "timeslot_uuid of the booking's resource, or, for a booking made through a pool, of any member of that pool",
    'pool_uuid the pool the booking was made through',
  ),
  scope: beyondSchema('', `${AMBIGUOUS}; a tslRefs reference must name one timeslot or appointment`),
};

const tags = ['public booking'];
/** No API key: the consumer's booking flow is public. */
const security: [] = [];

/** Group A: the consumer booking flow. No authentication; CORS on every path. */
export const publicRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; listing: ListingState }> = async (
  app,
  { deps, listing },
) => {
  publicCors(app, PATHS);
  const bookingLimit = { rateLimit: { max: deps.config.bookingRateLimitPerMinute, timeWindow: 60_000 } };
  const idempotent = idempotencyHooks(deps);

  app.get(
    PATHS.upcoming,
    {
      compress: false, // sendCachedJson compresses each cached listing once
      schema: {
        tags,
        security,
        operationId: 'listUpcomingBookables',
        summary: 'A1 upcoming bookable slots of one or more resources, grouped',
        description: DESCRIPTIONS.upcoming(
          'The answer carries an ETag (If-None-Match with it gives 304 while the listing is unchanged) and comes ' +
            'in br or gzip as Accept-Encoding allows. Cache-Control lets a shared cache (a CDN, a reverse proxy) ' +
            'keep it 1 s (CDN-Cache-Control: and serve it 1 s more while it fetches the next); ' +
            'browsers revalidate every use.',
        ),
        params: RefParams,
        querystring: UpcomingQuery,
        headers: UpcomingHeaders,
        response: {
          200: UpcomingResponse,
          204: Type.Null({ description: 'nothing bookable' }),
          304: Type.Null({ description: 'unchanged since the ETag given in If-None-Match' }),
          ...errorReplies(400, 404),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const json = await upcomingBookablesOrPool(listing, {
        refs: [{ ref: request.params.ref, field: 'ref' }, ...(q.ref ?? []).map((ref) => ({ ref, field: 'query.ref' }))],
        groupFormat: q.groupFormat,
        timeFormat: q.timeFormat,
        languageTag: q.languageTag,
        channelKey: q.channelKey!,
        prdRef: q.prdRef,
      });
      // nothing bookable (sold out, in a rush) is shared as long as a listing is
      if (!json) return reply.headers(SHARED_CACHE_HEADERS).code(204).send(null);
      // already serialized (and cached) by the domain, exactly to UpcomingResponse: a Buffer skips the serializer
      return sendCachedJson(request, reply, json);
    },
  );

  app.post(
    PATHS.reserve,
    {
      config: bookingLimit,
      ...idempotent,
      schema: {
        tags,
        security,
        operationId: 'reserveAppointment',
        summary: 'A2 reserve a slot (a hold of RESERVATION_HOLD_SECONDS)',
        description: DESCRIPTIONS.reserve,
        headers: IdempotencyHeaders,
        params: RefParams,
        querystring: ReserveQuery,
        body: ReserveBody,
        response: { 201: ReserveResponse, ...bookingErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      if (b.pool_uuid && !b.timeslot_uuid && !b.appointment_uuid) {
        const held = await reservePool(deps, {
          ref: request.params.ref,
          poolUuid: b.pool_uuid,
          channelKey: request.query.channelKey!,
          productUuid: b.product_uuid,
          from: b.from,
          to: b.to,
          clientIp: request.ip,
        });
        return reply.code(201).send(envelope(held));
      }
      const result = await reserveAppointment(deps, {
        ref: request.params.ref,
        channelKey: request.query.channelKey!,
        timeslotUuid: b.timeslot_uuid,
        appointmentUuid: b.appointment_uuid,
        productUuid: b.product_uuid,
        from: b.from,
        to: b.to,
        clientIp: request.ip,
      });
      return reply.code(201).send(envelope(result));
    },
  );

  app.post(
    PATHS.create,
    {
      config: bookingLimit,
      ...idempotent,
      schema: {
        tags,
        security,
        operationId: 'createAppointmentWithConsumer',
        summary: 'A3 book a slot for a consumer (completes a reservation)',
        description: DESCRIPTIONS.create,
        headers: IdempotencyHeaders,
        params: RefParams,
        querystring: BookQuery,
        body: BookBody,
        response: { 201: BookResponse, ...bookingErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const booking = {
        ref: request.params.ref,
        channelKey: b.channelKey!,
        timeFormat: request.query.timeFormat,
        start: b.start,
        end: b.end,
        timeslotUuid: b.timeslot_uuid ?? '',
        productUuid: b.product_uuid ?? undefined,
        placeholderId: b.placeholder_id ?? undefined,
        email: b.email,
        firstname: b.firstname,
        lastname: b.lastname,
        mobile: b.mobile ?? undefined,
        message: b.message ?? undefined,
        locale: b.locale ?? undefined,
        answers: b.answers,
        keepAnswer: answerWithin(request, reply, 201),
      };
      const result = b.pool_uuid
        ? await bookPool(deps, { ...booking, poolUuid: b.pool_uuid })
        : await createAppointmentWithConsumer(deps, booking);
      return reply.code(201).send(envelope(result));
    },
  );

  app.post(
    PATHS.reschedule,
    {
      config: bookingLimit,
      ...idempotent,
      schema: {
        tags,
        security,
        operationId: 'rescheduleBooking',
        summary:
          'Moves the booking of a cancel link to another slot of its resource (or its pool) ' +
          '(same participation, new place taken and old one freed in one transaction)',
        description: DESCRIPTIONS.reschedule,
        params: RescheduleParams,
        querystring: BookQuery,
        headers: IdempotencyHeaders,
        body: RescheduleBody,
        response: { 200: BookResponse, ...bookingErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      return envelope(
        await rescheduleByToken(deps, {
          token: request.params.token,
          start: b.start,
          end: b.end,
          timeslotUuid: b.timeslot_uuid,
          poolUuid: b.pool_uuid,
          productUuid: b.product_uuid ?? undefined,
          timeFormat: request.query.timeFormat,
          keepAnswer: answerWithin(request, reply, 200),
        }),
      );
    },
  );

  app.post(
    PATHS.products,
    {
      schema: {
        tags,
        security,
        operationId: 'listActiveProducts',
        summary: 'A4 products bookable on resources, timeslots or appointments, with their booking questions',
        description: DESCRIPTIONS.scope,
        querystring: ActiveProductsQuery,
        response: { 200: ActiveProductsResponse, ...scopeErrors },
      },
    },
    async (request) => {
      const { languageTag, ...scope } = request.query;
      const language = languageTag?.trim() || request.headers['accept-language'];
      return envelope(await activeProducts(deps, { ...scope, channelKey: scope.channelKey!, language }));
    },
  );

  app.post(
    PATHS.publicData,
    {
      schema: {
        tags,
        security,
        operationId: 'getPublicData',
        summary: 'A5 public data of a resource: contact, resource, provider, channel',
        description: DESCRIPTIONS.scope,
        querystring: ScopeQuery,
        response: { 200: PublicDataResponse, ...scopeErrors },
      },
    },
    async (request) => envelope(await publicData(deps, { ...request.query, channelKey: request.query.channelKey! })),
  );
};
