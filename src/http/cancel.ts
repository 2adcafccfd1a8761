import formbody from '@fastify/formbody';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cancelByToken, TooLateToCancel, viewCancellation } from '../booking/selfCancel.js';
import type { Deps } from '../context.js';
import { cancelPage } from './cancelPage.js';
import { answerErrorsAsPages, langOf, PAGE_CSP, pageLocale, sendPage } from './htmlPage.js';
import { isRequestProblem, requestProblem } from './pageProblem.js';
import { ErrorResponse } from './reply.js';
import { LinkToken, noBodyAsEmpty } from './requestSchema.js';

const Params = Type.Object({ token: LinkToken('the signed token of the cancel link') });
const Query = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 35, description: 'de or en; overrides the booking language' })),
  rescheduled: Type.Optional(
    Type.String({ maxLength: 8, description: 'set by the manage page after a move: shows that it was moved' }),
  ),
});
/** The page's form sends no fields; an empty or absent body is the normal case. */
const Body = Type.Object({}, { additionalProperties: true, description: 'ignored; the page form posts an empty body' });
const Html = Type.String({ description: 'HTML page' });
const page = (description: string) => ({ description, content: { 'text/html': { schema: Html } } });
const pageOrError = (description: string) => ({
  description,
  content: { 'text/html': { schema: Html }, 'application/json': { schema: ErrorResponse } },
});
const readErrors = {
  400: pageOrError('invalid request'),
  404: pageOrError('forged, altered or unknown token; nothing changed'),
  409: pageOrError(
    "the appointment has already started, or less than the resource's cancel notice is left (the page says " +
      'so); nothing changed',
  ),
};
const errors = {
  ...readErrors,
  413: pageOrError('the body is larger than 1 MiB'),
  415: pageOrError('the body is neither a form (application/x-www-form-urlencoded) nor JSON'),
};
/** Public: the token in the path is the authorization. */
const security: [] = [];

/** The consumer's cancel link (docs/api.md, Booking rules): GET shows the appointment and a button, POST cancels. */
export const cancelRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // the page's own form posts application/x-www-form-urlencoded; only these routes accept it
  await app.register(formbody);

  answerErrorsAsPages(app, (err, status, request) => {
    const view = err instanceof TooLateToCancel ? err.view : undefined;
    const locale = pageLocale(langOf(request), view?.language, request.headers['accept-language']);
    if (isRequestProblem(status)) {
      return cancelPage('bad-request', locale, undefined, { problem: requestProblem(err, status, locale) });
    }
    const kind =
      err instanceof TooLateToCancel
        ? err.reason === 'notice'
          ? 'notice'
          : 'too-late'
        : status === 404
          ? 'invalid'
          : 'error';
    return cancelPage(kind, locale, view);
  });

  app.get(
    '/cancel/:token',
    {
      schema: {
        tags: ['cancel link'],
        security,
        operationId: 'viewBookingByLink',
        summary:
          "The consumer's manage page: the appointment, another time to choose (the widget's slot picker) " +
          'and a cancel button (changes nothing)',
        params: Params,
        querystring: Query,
        response: { 200: page('the appointment with a cancel button, or that it is already cancelled'), ...readErrors },
      },
    },
    async (request, reply) => {
      const view = await viewCancellation(deps, request.params.token);
      const locale = pageLocale(request.query.lang, view.language, request.headers['accept-language']);
      return sendPage(
        reply,
        200,
        cancelPage(view.state === 'CANCELED' ? 'already' : 'confirm', locale, view, {
          moved: request.query.rescheduled === '1',
        }),
        PAGE_CSP.scripted,
      );
    },
  );

  app.post(
    '/cancel/:token',
    {
      schema: {
        tags: ['cancel link'],
        security,
        operationId: 'cancelBookingByLink',
        'x-body-optional': true,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        summary: 'Cancels the participation of the link (CANCELED, place freed, mails to consumer and provider side)',
        params: Params,
        querystring: Query,
        body: Body,
        response: { 200: page('cancelled now, or already before'), ...errors },
      },
      // a POST without any body (no content type) is the page's form too
      preValidation: noBodyAsEmpty,
    },
    async (request, reply) => {
      const { alreadyCanceled, view } = await cancelByToken(deps, request.params.token);
      const locale = pageLocale(request.query.lang, view.language, request.headers['accept-language']);
      return sendPage(reply, 200, cancelPage(alreadyCanceled ? 'already' : 'done', locale, view));
    },
  );
};
