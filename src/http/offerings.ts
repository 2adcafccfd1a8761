import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as products from '../offerings/products.js';
import * as resources from '../offerings/resources.js';
import * as S from './offeringSchemas.js';
import { Enveloped, envelope, errorResponses } from './reply.js';

const productTags = ['B. Offerings: products'];
const resourceTags = ['B. Offerings: resources'];
const security = [{ apiKey: [] }];

export const offeringRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/provider/:providerRef/products',
    {
      schema: {
        tags: productTags, security, summary: 'B1 create a product', params: S.ProviderParams, body: S.ProductBody,
        response: { 201: Enveloped({ product: S.Product }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const product = await products.createProduct(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(201).send(envelope({ product }));
    },
  );

  app.get(
    '/provider/:providerRef/products',
    { schema: { tags: productTags, security, summary: 'B2 list products (bare array)', params: S.ProviderParams, response: { 200: Type.Array(S.Product), ...errorResponses } } },
    async (request) => products.listProducts(deps, request.crmId, request.params.providerRef),
  );

  app.post(
    '/provider/:providerRef/products/:productRef',
    {
      schema: {
        tags: productTags, security, summary: 'update a product (given fields only)', params: S.ProductParams, body: S.ProductUpdateBody,
        response: { 200: Enveloped({ product: S.Product }), ...errorResponses },
      },
    },
    async (request) =>
      envelope({ product: await products.updateProduct(deps, request.crmId, request.params.providerRef, request.params.productRef, request.body) }),
  );

  app.post(
    '/provider/:providerRef/resources',
    {
      schema: {
        tags: resourceTags, security, summary: 'B3 create a resource (bare object; 201 created, 200 existing one updated)',
        params: S.ProviderParams, querystring: S.ResourceCreateQuery, body: S.ResourceBody,
        response: { 200: S.Resource, 201: S.Resource, ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await resources.createResource(deps, request.crmId, request.params.providerRef, request.body, request.query.onDuplicateRaise);
      return reply.status(result.created ? 201 : 200).send(result.resource);
    },
  );

  app.post(
    '/provider/:providerRef/resources/:resourceRef',
    {
      schema: {
        tags: resourceTags, security, summary: 'B4 update a resource (given fields only; bare object)',
        params: S.ResourceParams, body: S.ResourceUpdateBody, response: { 202: S.Resource, ...errorResponses },
      },
    },
    async (request, reply) => {
      const resource = await resources.updateResource(deps, request.crmId, request.params.providerRef, request.params.resourceRef, request.body);
      return reply.status(202).send(resource);
    },
  );

  app.get(
    '/provider/:providerRef/resources',
    { schema: { tags: resourceTags, security, summary: 'B5 list resources (bare array)', params: S.ProviderParams, response: { 200: Type.Array(S.Resource), ...errorResponses } } },
    async (request) => resources.listResources(deps, request.crmId, request.params.providerRef),
  );
};
