import { SMTPServer } from 'smtp-server';
import { freePort } from './ports.js';

/** One MIME part; leaves have a decoded body, multiparts have parts. */
export interface MimePart {
  headers: Map<string, string>;
  contentType: string;
  params: Record<string, string>;
  body: string;
  parts: MimePart[];
}

/** The pieces of a received mail the tests look at. */
export interface ParsedMail {
  raw: string;
  headers: Map<string, string>;
  messageId: string | undefined;
  from: string | undefined;
  to: string | undefined;
  subject: string;
  text: string | undefined;
  html: string | undefined;
  /** the text/calendar part (the invite nodemailer puts into the alternatives) */
  calendar: { method: string | undefined; content: string } | undefined;
  attachments: { filename: string | undefined; contentType: string; content: string }[];
}

export interface ReceivedMail extends ParsedMail {
  envelopeTo: string[];
}

function splitHead(raw: string): [string, string] {
  const m = /\r?\n\r?\n/.exec(raw);
  return m ? [raw.slice(0, m.index), raw.slice(m.index + m[0].length)] : [raw, ''];
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return headers;
}

/** `text/plain; charset=utf-8; name="x.ics"` into the type and its parameters. */
function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  const [type, ...rest] = (value ?? 'text/plain').split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i > 0)
      params[p.slice(0, i).trim().toLowerCase()] = p
        .slice(i + 1)
        .trim()
        .replace(/^"|"$/g, '');
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeQuotedPrintable(text: string): Buffer {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(soft.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch (encoding?.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body).toString('utf8');
    default:
      return Buffer.from(body, 'latin1').toString('utf8');
  }
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=) in a header value. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
    );
}

function parsePart(raw: string): MimePart {
  const [head, body] = splitHead(raw);
  const headers = parseHeaders(head);
  const { type, params } = parseContentType(headers.get('content-type'));
  if (type.startsWith('multipart/') && params.boundary) {
    const chunks = body.split(`--${params.boundary}`);
    const parts = chunks
      .slice(1)
      .filter((c) => !c.startsWith('--'))
      .map((c) => parsePart(c.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, contentType: type, params, body: '', parts };
  }
  const decoded = decodeBody(body, headers.get('content-transfer-encoding'));
  // SMTP carries CRLF; tests compare text with plain \n line ends
  return {
    headers,
    contentType: type,
    params,
    body: type.startsWith('text/') ? decoded.replace(/\r\n/g, '\n') : decoded,
    parts: [],
  };
}

function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves);
}

/** A deliberately small MIME reader: enough for what nodemailer writes (multipart, QP, base64, encoded words). */
export function parseMail(input: string | Buffer): ParsedMail {
  const raw = typeof input === 'string' ? input : input.toString('latin1');
  const root = parsePart(raw);
  const all = leaves(root);
  const isAttachment = (p: MimePart) => /^attachment/i.test(p.headers.get('content-disposition') ?? '');
  const inline = all.filter((p) => !isAttachment(p));
  const calendar = inline.find((p) => p.contentType === 'text/calendar');
  const header = (name: string) => {
    const v = root.headers.get(name);
    return v === undefined ? undefined : decodeWords(v);
  };
  return {
    raw,
    headers: root.headers,
    messageId: header('message-id'),
    from: header('from'),
    to: header('to'),
    subject: header('subject') ?? '',
    text: inline.find((p) => p.contentType === 'text/plain')?.body,
    html: inline.find((p) => p.contentType === 'text/html')?.body,
    calendar: calendar ? { method: calendar.params.method, content: calendar.body } : undefined,
    attachments: all.filter(isAttachment).map((p) => ({
      filename: p.params.name ?? /filename="?([^";]+)/.exec(p.headers.get('content-disposition') ?? '')?.[1],
      contentType: p.contentType,
      content: p.body,
    })),
  };
}

/**
 * A real SMTP server on 127.0.0.1 that keeps every mail it accepts. It can go down and come back
 * on the same port (a new server each time: a closed smtp-server answers 421 forever), and can
 * answer MAIL FROM with a temporary 451 error.
 */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  /** answer 451 to every MAIL FROM while true */
  rejecting = false;
  /** how long each mail's acceptance takes (a slow relay) */
  delayMs = 0;
  private server: SMTPServer | null = null;

  private constructor(readonly port: number) {}

  static async start(options: { down?: boolean } = {}): Promise<SmtpSink> {
    const sink = new SmtpSink(await freePort());
    if (!options.down) await sink.up();
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  get isUp(): boolean {
    return this.server !== null;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 50,
      onMailFrom: (_address, _session, callback) => {
        if (!this.rejecting) return callback();
        callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const accept = () => {
            this.mails.push({
              ...parseMail(Buffer.concat(chunks)),
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            });
            callback();
          };
          if (this.delayMs > 0) setTimeout(accept, this.delayMs);
          else accept();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    server.on('error', () => undefined);
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((m) => m.envelopeTo.includes(address));
  }

  /** Waits until at least `count` mails have arrived (then a moment more, so a duplicate would show). */
  async waitFor(count: number, timeoutMs = 25_000, settleMs = 100): Promise<ReceivedMail[]> {
    const until = Date.now() + timeoutMs;
    while (this.mails.length < count) {
      if (Date.now() > until)
        throw new Error(`expected ${count} mails, got ${this.mails.length} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, settleMs));
    return this.mails;
  }

  async close(): Promise<void> {
    await this.down();
  }
}
