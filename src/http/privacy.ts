/** A consumer's data (docs/privacy.md): export (GDPR Art. 15/20) and erasure (Art. 17). */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { eraseConsumer } from '../privacy/erase.js';
import { exportConsumerData } from '../privacy/exportData.js';
import { BODY_ERRORS, Enveloped, envelope, errorReplies, Nullable } from './reply.js';
import { CrmPath, exactlyOneOf, NonBlank, QueryObject } from './requestSchema.js';
import { ErasedCounts } from './webhookSchemas.js';

const tags = ['Consumer data'];
const security = [{ apiKey: [] }];
const CrmParams = CrmPath({});
const Email = NonBlank(320, 'the e-mail address (matched case-insensitively, without surrounding white space)');
const Mobile = NonBlank(
  64,
  'the mobile number in any written form, compared in E.164 (without a country code: read for the country of ' +
    "the crm's accounts, else DE)",
);
const ONE_OF = 'exactly one of email and mobile';
const whoMembers = { email: Type.Optional(Email), mobile: Type.Optional(Mobile) };
/** The query of the export: one object parameter in the document (`?email=...` or `?mobile=...`). */
const WhoQuery = QueryObject('person', Type.Object(whoMembers, exactlyOneOf('email', 'mobile')));
const WhoBody = Type.Object(whoMembers, { additionalProperties: false, ...exactlyOneOf('email', 'mobile') });
const Instant = Type.String({ format: 'date-time' });
const Text = Nullable(Type.String());

const Consumer = Type.Object(
  {
    users: Type.Array(
      Type.Object({
        reference: Text,
        email: Type.String(),
        username: Type.String(),
        firstName: Text,
        lastName: Text,
        phone: Text,
        mobile: Text,
        language: Text,
        createdAt: Instant,
      }),
    ),
    customers: Type.Array(
      Type.Object({
        customerReference: Type.String(),
        providerReference: Type.String(),
        userName: Type.String(),
        email: Text,
        mobile: Text,
        note: Text,
        language: Text,
        createdAt: Instant,
      }),
    ),
    participations: Type.Array(
      Type.Object({
        reference: Type.String(),
        uuid: Type.String({ format: 'uuid' }),
        providerReference: Type.String(),
        customerReference: Text,
        state: Type.String(),
        message: Text,
        note: Text,
        locale: Text,
        channelKey: Text,
        clientIp: Nullable(Type.String({ description: 'the address the public booking came from' })),
        answers: Type.Array(Type.Unknown(), { description: 'the booking answers [{key, label, value}]' }),
        createdAt: Instant,
        appointment: Type.Object({
          reference: Type.String(),
          uuid: Type.String({ format: 'uuid' }),
          start: Instant,
          end: Instant,
          state: Type.String(),
        }),
        product: Nullable(Type.Object({ reference: Type.String(), name: Type.String() })),
        resource: Nullable(Type.Object({ reference: Type.String(), name: Type.String() })),
      }),
    ),
    mails: Type.Array(
      Type.Object({
        type: Type.String({ description: 'the mail template' }),
        to: Type.String(),
        status: Type.String({ description: 'PENDING, SENT or FAILED' }),
        createdAt: Instant,
        sentAt: Nullable(Instant),
      }),
    ),
  },
  { description: 'all that this partner holds on the person; empty arrays when nothing' },
);

/** Under /crms/{crmId}: nothing is looked up by path, so never 404. */
const errors = errorReplies(400, 401, 403);

export const privacyRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/consumer-data',
    {
      schema: {
        tags,
        security,
        operationId: 'exportConsumerData',
        summary: 'Everything this partner holds on a person, by e-mail or mobile (GDPR Art. 15/20)',
        description: `Give ${ONE_OF}. Nothing found: 200 with empty arrays.`,
        params: CrmParams,
        querystring: WhoQuery,
        response: { 200: Enveloped({ consumer: Consumer }), ...errors },
      },
    },
    async (request) => envelope({ consumer: await exportConsumerData(deps, request.crmId, request.query) }),
  );

  app.post(
    '/consumer-data/erase',
    {
      schema: {
        tags,
        security,
        operationId: 'eraseConsumerData',
        summary: "Erase a person's data, by e-mail or mobile (GDPR Art. 17); a second call erases 0",
        description: `Give ${ONE_OF}. Bookings stay as anonymous places (capacity unchanged); see docs/privacy.md.`,
        params: CrmParams,
        body: WhoBody,
        response: { 200: Enveloped({ erased: ErasedCounts }), ...errors, ...errorReplies(...BODY_ERRORS) },
      },
    },
    async (request) => envelope({ erased: await eraseConsumer(deps, request.crmId, request.body) }),
  );
};
