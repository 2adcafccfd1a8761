import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import { myBookingsOf, requestMyBookings, zonedIso, type MyBookings } from '../booking/myBookings.js';
import type { Deps } from '../context.js';
import { publicCors } from './cors.js';
import { answerErrorsAsPages, langOf, pageLocale, sendPage } from './htmlPage.js';
import { myBookingsPage } from './myBookingsPage.js';
import {
  MY_BOOKINGS_ACCEPTED,
  MyBookingsAccepted,
  MyBookingsBody,
  MyBookingsParams,
  MyBookingsQuery,
  MyBookingsResponse,
} from './myBookingsSchemas.js';
import { BODY_ERRORS, envelope, ErrorResponse, errorReplies } from './reply.js';

const PATHS = { myBookings: '/rest/1/my-bookings', myBookingsList: '/rest/1/my-bookings/:token' };
const tags = ['my bookings'];
/** Public: the consumer's own e-mail (POST) or the token in the path (GET) is all there is. */
const security: [] = [];

/** The list as the widget reads it. */
const bookingsJson = (list: MyBookings) =>
  list.bookings.map(({ participationId, view, cancelLink, canCancel, canReschedule }) => ({
    participationUuid: participationId,
    state: view.state,
    start: zonedIso(view.start, view.timeZone),
    end: zonedIso(view.end, view.timeZone),
    timeZone: view.timeZone,
    productName: view.productName,
    resourceName: view.resourceName,
    address: view.address,
    providerName: view.providerName,
    canCancel,
    canReschedule,
    cancelLink,
  }));

/**
 * "My bookings" for the widget (DESIGN 7.12): ask for the link by
 * e-mail, read the list by its token. CORS as the booking flow.
 */
export const myBookingsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  publicCors(app, PATHS);
  const limit = { rateLimit: { max: deps.config.bookingRateLimitPerMinute, timeWindow: 60_000 } };

  app.post(
    PATHS.myBookings,
    {
      config: limit,
      schema: {
        tags,
        security,
        operationId: 'requestMyBookingsLink',
        summary: 'Mails a link to the bookings of this address at the provider of ref; the same 202 for every address',
        description:
          'When the address has bookings at the provider (upcoming or of the last 30 days), ' +
          'a mail carries PUBLIC_BASE_URL/my-bookings/{token} ' +
          '(valid 24 h; at most 3 such mails per address and hour). The answer never tells whether it did.',
        querystring: MyBookingsQuery,
        body: MyBookingsBody,
        response: { 202: MyBookingsAccepted, ...errorReplies(400, 404, 429, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await requestMyBookings(deps, {
        ref: request.query.ref,
        email: request.body.email,
        locale: request.body.locale ?? undefined,
      });
      return reply.code(202).send(envelope({ message: MY_BOOKINGS_ACCEPTED }));
    },
  );

  app.get(
    PATHS.myBookingsList,
    {
      config: limit,
      schema: {
        tags,
        security,
        operationId: 'listMyBookings',
        summary: 'The bookings of a "my bookings" link, as JSON (the widget)',
        params: MyBookingsParams,
        response: { 200: MyBookingsResponse, ...errorReplies(400, 404, 429) },
      },
    },
    async (request, reply) => {
      const list = await myBookingsOf(deps, request.params.token);
      return reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send(envelope({ bookings: bookingsJson(list) }));
    },
  );
};

const Html = Type.String({ description: 'HTML page' });
const pageOrError = (description: string) => ({
  description,
  content: { 'text/html': { schema: Html }, 'application/json': { schema: ErrorResponse } },
});

/** The page the mailed link opens: the person's bookings with their actions (de/en). */
export const myBookingsPageRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  answerErrorsAsPages(app, (_err, status, request) =>
    myBookingsPage(
      status === 404 ? 'invalid' : 'error',
      pageLocale(langOf(request), null, request.headers['accept-language']),
    ),
  );

  app.get(
    '/my-bookings/:token',
    {
      config: { rateLimit: { max: deps.config.bookingRateLimitPerMinute, timeWindow: 60_000 } },
      schema: {
        tags,
        security,
        operationId: 'viewMyBookings',
        summary:
          'The page of a "my bookings" link: upcoming bookings and those of the last 30 days, ' +
          'each with cancel and "choose another time"',
        params: MyBookingsParams,
        querystring: Type.Object({
          lang: Type.Optional(Type.String({ maxLength: 35, description: 'de or en; overrides the booking language' })),
        }),
        response: {
          200: { description: 'the bookings', content: { 'text/html': { schema: Html } } },
          400: pageOrError('invalid request'),
          404: pageOrError("forged, altered or expired token, or the person's data was erased"),
          429: pageOrError('too many requests from this address'),
        },
      },
    },
    async (request, reply) => {
      const list = await myBookingsOf(deps, request.params.token);
      const locale = pageLocale(request.query.lang, list.language, request.headers['accept-language']);
      return sendPage(reply, 200, myBookingsPage('list', locale, list));
    },
  );
};
