// W1-CACHED's ceiling: a plain node:http server answering every request with the same bytes the
// service sent: the identity body, or the br body to a request whose Accept-Encoding names br.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const identity = readFileSync(process.argv[2]);
const br = readFileSync(process.argv[3]);
const brEncoding = process.argv[4] === 'br' ? { 'content-encoding': 'br' } : {};
const server = createServer((req, res) => {
  const encoded = /\bbr\b/.test(req.headers['accept-encoding'] ?? '');
  res.writeHead(
    200,
    encoded
      ? { 'content-type': 'application/json; charset=utf-8', ...brEncoding, 'content-length': br.length }
      : { 'content-type': 'application/json; charset=utf-8', 'content-length': identity.length },
  );
  res.end(encoded ? br : identity);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
