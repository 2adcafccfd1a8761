import type { FastifyInstance } from 'fastify';
import client from 'prom-client';

/**
 * Prometheus metrics at GET /metrics: process defaults plus request counts and latency per route.
 * Other modules register their own counters on the default registry.
 */
const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});
let defaultsRegistered = false;

export function registerMetrics(app: FastifyInstance): void {
  if (!defaultsRegistered) {
    client.collectDefaultMetrics();
    defaultsRegistered = true;
  }
  app.addHook('onResponse', (request, reply, done) => {
    httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unknown', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const schema = {
    tags: ['operations'],
    security: [],
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text exposition format)',
    response: { 200: { description: 'the metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.header('content-type', client.register.contentType);
    return client.register.metrics();
  });
}
