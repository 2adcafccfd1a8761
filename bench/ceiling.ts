/** W1's ceiling: a bare Fastify answering every request with the same, precomputed response bytes. */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.argv[2]);
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  process.exit(0);
});
