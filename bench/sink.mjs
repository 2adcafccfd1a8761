// Where the bench's service delivers, in a process of its own (its CPU is neither the service's nor
// the load generator's): an SMTP server (smtp-server) that accepts every mail and records when it
// accepted it (the 250 to DATA) and for whom, and an HTTP receiver for webhooks (204 to every POST).
// Prints `LISTENING <http url>`; GET /smtp gives the SMTP port, GET /log?since=<i> the records from
// the i-th on: { mails: [[recipient, acceptedAtMs, messageId], ...], hooks: [receivedAtMs, ...] }.
import { createServer } from 'node:http';
import { SMTPServer } from 'smtp-server';

/** wall-clock milliseconds with a fraction (the bench compares them with its own) */
const now = () => performance.timeOrigin + performance.now();
const mails = [];
const hooks = [];

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  size: 1024 * 1024,
  onData(stream, session, callback) {
    let head = '';
    stream.on('data', (chunk) => {
      if (head.length < 4096) head += chunk.toString('latin1');
    });
    stream.on('end', () => {
      const at = now();
      const messageId = /^message-id:\s*(\S+)/im.exec(head)?.[1] ?? '';
      for (const r of session.envelope.rcptTo) mails.push([r.address, at, messageId]);
      callback();
    });
  },
});
await new Promise((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = smtp.server.address().port;

const http = createServer((req, res) => {
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => {
      hooks.push(now());
      res.writeHead(204).end();
    });
    return;
  }
  const url = new URL(req.url, 'http://sink');
  if (url.pathname === '/smtp') return res.end(JSON.stringify({ port: smtpPort }));
  if (url.pathname === '/log') {
    const mailsFrom = Number(url.searchParams.get('mails') ?? 0);
    const hooksFrom = Number(url.searchParams.get('hooks') ?? 0);
    res.setHeader('content-type', 'application/json');
    return res.end(JSON.stringify({ mails: mails.slice(mailsFrom), hooks: hooks.slice(hooksFrom) }));
  }
  res.writeHead(404).end();
});
http.keepAliveTimeout = 60_000;
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
process.stdout.write(`LISTENING http://127.0.0.1:${http.address().port}\n`);
process.on('SIGTERM', () => process.exit(0));
