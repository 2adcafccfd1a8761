import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';

// Placeholder: routes arrive with their issue.
export const offeringRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async () => {};
