import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { deleteResource } from '../scheduling/deleteResource.js';
import * as products from '../offerings/products.js';
import * as profiles from '../offerings/profiles.js';
import * as resources from '../offerings/resources.js';
import * as S from './offeringSchemas.js';
import { BODY_ERRORS, Enveloped, envelope, partnerErrors } from './reply.js';
import { beyondSchema } from './requestSchema.js';

const productTags = ['B. Offerings: products'];
const resourceTags = ['B. Offerings: resources'];
const profileTags = ['B. Offerings: contact profiles'];
const security = [{ apiKey: [] }];

// the rules of B1-B10 the schemas cannot state (docs/decisions.md, Offerings)
const QUESTION_RULES = ['questions[].key unique in the product', 'questions[].options[].value unique in the question'];
const PROFILE_RULE = 'contactProfileReference a profile of the user in contact, for this provider';
const DESCRIPTIONS = {
  createProduct: beyondSchema('', ...QUESTION_RULES, 'minDuration not greater than maxDuration'),
  updateProduct: beyondSchema(
    '',
    ...QUESTION_RULES,
    'minDuration not greater than maxDuration (a member not given: the stored value)',
  ),
  createResource: beyondSchema(
    '',
    "with onDuplicateRaise=true, reference not yet taken (the spec's 400)",
    PROFILE_RULE,
  ),
  updateResource: beyondSchema('', PROFILE_RULE),
  upsertContactProfile: beyondSchema('', "providerReference equal to the path's providerRef"),
};

export const offeringRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/provider/:providerRef/products',
    {
      schema: {
        tags: productTags,
        security,
        operationId: 'createProduct',
        summary: 'B1 create a product',
        params: S.ProviderParams,
        body: S.ProductBody,
        description: DESCRIPTIONS.createProduct,
        response: { 201: Enveloped({ product: S.Product }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const product = await products.createProduct(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(201).send(envelope({ product }));
    },
  );

  app.get(
    '/provider/:providerRef/products',
    {
      schema: {
        tags: productTags,
        security,
        operationId: 'listProducts',
        summary: 'B2 list products (bare array)',
        params: S.ProviderParams,
        response: { 200: Type.Array(S.Product), ...partnerErrors() },
      },
    },
    async (request) => products.listProducts(deps, request.crmId, request.params.providerRef),
  );

  app.post(
    '/provider/:providerRef/products/:productRef',
    {
      schema: {
        tags: productTags,
        security,
        operationId: 'updateProduct',
        summary: 'update a product (given fields only)',
        params: S.ProductParams,
        body: S.ProductUpdateBody,
        description: DESCRIPTIONS.updateProduct,
        response: { 200: Enveloped({ product: S.Product }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request) =>
      envelope({
        product: await products.updateProduct(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.productRef,
          request.body,
        ),
      }),
  );

  app.post(
    '/provider/:providerRef/resources',
    {
      schema: {
        tags: resourceTags,
        security,
        operationId: 'createResource',
        summary: 'B3 create a resource, or update an existing reference unless onDuplicateRaise (201, bare object)',
        description: DESCRIPTIONS.createResource,
        params: S.ProviderParams,
        querystring: S.ResourceCreateQuery,
        body: S.ResourceBody,
        response: { 201: S.Resource, ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const resource = await resources.createResource(
        deps,
        request.crmId,
        request.params.providerRef,
        request.body,
        request.query.onDuplicateRaise ?? false,
      );
      return reply.status(201).send(resource);
    },
  );

  app.post(
    '/provider/:providerRef/resources/:resourceRef',
    {
      schema: {
        tags: resourceTags,
        security,
        operationId: 'updateResource',
        summary: 'B4 update a resource (given fields only; bare object)',
        description: DESCRIPTIONS.updateResource,
        params: S.ResourceParams,
        body: S.ResourceUpdateBody,
        response: { 202: S.Resource, ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const resource = await resources.updateResource(
        deps,
        request.crmId,
        request.params.providerRef,
        request.params.resourceRef,
        request.body,
      );
      return reply.status(202).send(resource);
    },
  );

  app.get(
    '/provider/:providerRef/resources',
    {
      schema: {
        tags: resourceTags,
        security,
        operationId: 'listResources',
        summary: 'B5 list resources (bare array)',
        params: S.ProviderParams,
        response: { 200: Type.Array(S.Resource), ...partnerErrors() },
      },
    },
    async (request) => resources.listResources(deps, request.crmId, request.params.providerRef),
  );

  app.delete(
    '/provider/:providerRef/resources/:resourceRef',
    {
      schema: {
        tags: resourceTags,
        security,
        operationId: 'deleteResource',
        summary:
          'B6 delete a resource for good (409 while future appointments exist unless ignoreFutureAppointments=true)',
        params: S.ResourceParams,
        querystring: S.ResourceDeleteQuery,
        response: { 204: Type.Null({ description: 'deleted' }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const { crmId, params, query } = request;
      await deleteResource(
        deps,
        crmId,
        params.providerRef,
        params.resourceRef,
        query.ignoreFutureAppointments ?? false,
      );
      return reply.status(204).send(null);
    },
  );

  const profileRead = { 200: Enveloped({ profile: S.Profile }), ...partnerErrors() };
  const profile = Enveloped({ profile: S.Profile });

  app.get(
    '/user/:userRef/generalContactProfile',
    {
      schema: {
        tags: profileTags,
        security,
        operationId: 'getGeneralContactProfile',
        summary: 'B7 read the general contact profile of a user',
        params: S.UserParams,
        response: profileRead,
      },
    },
    async (request) =>
      envelope({ profile: await profiles.getGeneralProfile(deps, request.crmId, request.params.userRef) }),
  );

  app.put(
    '/user/:userRef/generalContactProfile',
    {
      schema: {
        tags: profileTags,
        security,
        operationId: 'putGeneralContactProfile',
        summary: 'B8 create (201) or update (200) the general contact profile; channels merged by type',
        params: S.UserParams,
        body: S.GeneralProfileBody,
        response: { 200: profile, 201: profile, ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const result = await profiles.putGeneralProfile(deps, request.crmId, request.params.userRef, request.body);
      return reply.status(result.created ? 201 : 200).send(envelope({ profile: result.profile }));
    },
  );

  app.get(
    '/provider/:providerRef/contactProfile/:profileRef',
    {
      schema: {
        tags: profileTags,
        security,
        operationId: 'getContactProfile',
        summary: 'B9 read a provider-specific contact profile',
        params: S.ProfileParams,
        response: profileRead,
      },
    },
    async (request) =>
      envelope({
        profile: await profiles.getProviderProfile(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.profileRef,
        ),
      }),
  );

  app.post(
    '/provider/:providerRef/contactProfile',
    {
      schema: {
        tags: profileTags,
        security,
        operationId: 'upsertContactProfile',
        summary: 'B10 create (201) or update (200) a provider-specific contact profile; channels merged by type',
        description: DESCRIPTIONS.upsertContactProfile,
        params: S.ProviderParams,
        body: S.ProfileBody,
        response: { 200: profile, 201: profile, ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const result = await profiles.upsertProviderProfile(
        deps,
        request.crmId,
        request.params.providerRef,
        request.body,
      );
      return reply.status(result.created ? 201 : 200).send(envelope({ profile: result.profile }));
    },
  );
};
