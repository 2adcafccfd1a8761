import formbody from '@fastify/formbody';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { decideRequest, RequestNotPending, viewRequest } from '../scheduling/decisionLink.js';
import { answerErrorsAsPages, langOf, pageLocale, sendPage } from './htmlPage.js';
import { isRequestProblem, requestProblem } from './pageProblem.js';
import { ErrorResponse } from './reply.js';
import { LinkToken, noBodyAsEmpty } from './requestSchema.js';
import { MAX_REASON, requestPage } from './requestPage.js';

const Params = Type.Object({ token: LinkToken('the signed token of the decision link') });
const Query = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 35, description: 'de or en; overrides the contact language' })),
});
const Body = Type.Object(
  {
    decision: Type.Union([Type.Literal('confirm'), Type.Literal('decline')], {
      description: 'confirm: REQUESTED -> BOOKED; decline: REQUESTED -> CANCELED',
    }),
    message: Type.Optional(
      Type.String({
        maxLength: MAX_REASON,
        description: "goes into the consumer's mail (the decline reason); empty = none",
      }),
    ),
  },
  { additionalProperties: true },
);
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
    'the request is no longer REQUESTED (decided before, or cancelled by the consumer); nothing changed',
  ),
};
const errors = {
  400: pageOrError('invalid form (decision missing or unknown, message too long)'),
  404: readErrors[404],
  409: readErrors[409],
  413: pageOrError('the body is larger than 1 MiB'),
  415: pageOrError('the body is neither a form (application/x-www-form-urlencoded) nor JSON'),
};
/** Public: the token in the path is the authorization. */
const security: [] = [];

/**
 * The provider's decision link (docs/provider-links.md): GET shows the request with Confirm / Decline, POST decides.
 */
export const requestRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // the page's forms post application/x-www-form-urlencoded; only these routes accept it
  await app.register(formbody);

  answerErrorsAsPages(app, (err, status, request) => {
    const view = err instanceof RequestNotPending ? err.view : undefined;
    const locale = pageLocale(langOf(request), view?.language, request.headers['accept-language']);
    if (isRequestProblem(status)) {
      return requestPage('bad-request', locale, undefined, requestProblem(err, status, locale));
    }
    return requestPage(view ? 'not-pending' : status === 404 ? 'invalid' : 'error', locale, view);
  });

  app.get(
    '/requests/:token',
    {
      schema: {
        tags: ['decision link'],
        security,
        operationId: 'viewDecisionRequest',
        summary:
          "The provider's decision page: the request (who, when, what, the consumer's message) " +
          'with Confirm / Decline (changes nothing)',
        params: Params,
        querystring: Query,
        response: { 200: page('the request awaiting a decision'), ...readErrors },
      },
    },
    async (request, reply) => {
      const view = await viewRequest(deps, request.params.token);
      return sendPage(
        reply,
        200,
        requestPage('decide', pageLocale(request.query.lang, view.language, request.headers['accept-language']), view),
      );
    },
  );

  app.post(
    '/requests/:token',
    {
      schema: {
        tags: ['decision link'],
        security,
        operationId: 'decideRequest',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        summary:
          'Confirms (BOOKED, consumer gets booking-confirmed with ICS) or declines (CANCELED, ' +
          'consumer gets booking-declined with the message) the request',
        params: Params,
        querystring: Query,
        body: Body,
        response: { 200: page('decided now'), ...errors },
      },
      // a POST without any body names the missing field, like one with an empty form
      preValidation: noBodyAsEmpty,
    },
    async (request, reply) => {
      const { decision, message } = request.body;
      const view = await decideRequest(deps, request.params.token, decision, message?.trim() ? message.trim() : null);
      const locale = pageLocale(request.query.lang, view.language, request.headers['accept-language']);
      return sendPage(reply, 200, requestPage(decision === 'confirm' ? 'confirmed' : 'declined', locale, view));
    },
  );
};
