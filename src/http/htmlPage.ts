/**
 * The plain HTML pages behind the links in mails (the consumer's /cancel, the provider's /requests):
 * one look, no script, every value escaped, errors as pages with their status.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { mailLocale, type MailLocale } from '../notifications/format.js';
import { escapeHtml } from '../notifications/layout.js';
import { statusOf } from './errors.js';

/**
 * ?lang=, else the language the link's mail was written in, else the browser's first choice if de or en, else German.
 */
export function pageLocale(
  lang: string | undefined,
  bookingLanguage: string | null | undefined,
  acceptLanguage: string | undefined,
): MailLocale {
  const first = (raw: string | null | undefined) => (raw && /^(de|en)\b/i.test(raw.trim()) ? raw.trim() : undefined);
  return mailLocale(first(lang) ?? first(bookingLanguage) ?? first(acceptLanguage?.split(',')[0]));
}

export const langOf = (request: FastifyRequest) => {
  const lang = (request.query as { lang?: unknown } | undefined)?.lang;
  return typeof lang === 'string' ? lang : undefined;
};

/** `<dl>` of the rows that have a value. */
export function detailList(rows: [label: string, value: string | null][]): string {
  return `<dl>${rows
    .filter((r): r is [string, string] => r[1] !== null && r[1] !== '')
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value).replace(/\r?\n/g, '<br>')}</dd>`)
    .join('')}</dl>`;
}

// Colours meet WCAG AA against white (red 7.0:1, green 6.0:1, grey text 7.4:1); focus is always visible.
const STYLE =
  'body{margin:0;padding:24px;font-family:system-ui,Arial,sans-serif;line-height:1.5;color:#222;background:#f6f6f6}' +
  'main{max-width:560px;margin:0 auto;background:#fff;padding:24px;border-radius:8px}' +
  'dt{font-weight:600;margin-top:8px}dd{margin:0}button{margin-top:16px;padding:10px 18px;font-size:16px;' +
  'background:#b00020;color:#fff;border:0;border-radius:4px;cursor:pointer}' +
  'button.confirm{background:#1b6e20}button:focus-visible,textarea:focus-visible{outline:3px solid ' +
  '#1a4fd6;outline-offset:2px}' +
  'form{margin-top:8px}label{display:block;font-weight:600;margin-top:16px}.hint{color:#555;font-weight:400}' +
  'textarea{display:block;box-sizing:border-box;width:100%;margin-top:4px;padding:8px;font:inherit;border:1px ' +
  'solid #767676;border-radius:4px}' +
  'blockquote{margin:4px 0 0;padding:8px 12px;border-left:3px solid #767676;background:#f6f6f6}' +
  'button.secondary,button.primary{background:#1a56db}h2{font-size:1.15rem;margin-top:28px}' +
  '.notice{background:#e8f5e9;border-left:4px solid #2e7d32;padding:8px 12px}' +
  '.error{background:#fdecea;border-left:4px solid #b00020;padding:8px 12px}';

export function htmlDocument(locale: MailLocale, title: string, body: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="${locale}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body><main>\n${body}\n</main></body></html>\n`
  );
}

/** JSON only for a client that asks for it and not for HTML; a browser gets the page. */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

/**
 * Pages without scripts (the default), and pages that run this service's own scripts (the manage page's slot picker).
 */
export const PAGE_CSP = {
  static: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  scripted:
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; " +
    "img-src https: data:; form-action 'self'; frame-ancestors 'none'",
};

export function sendPage(reply: FastifyReply, status: number, html: string, csp: string = PAGE_CSP.static) {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer') // the token is in the URL
    .header('x-robots-tag', 'noindex')
    .header('content-security-policy', csp)
    .send(html);
}

/**
 * Errors of these routes as pages with their status (JSON only when asked for it alone).
 * `render` gets the error and its status and returns the page.
 */
export function answerErrorsAsPages(
  app: FastifyInstance,
  render: (err: Error, status: number, request: FastifyRequest) => string,
): void {
  app.setErrorHandler((err, request, reply) => {
    if (wantsJson(request)) throw err; // the application's handler writes the documented error body
    const raw = err instanceof DomainError ? statusOf(err.code) : ((err as { statusCode?: number }).statusCode ?? 500);
    const status = raw >= 400 && raw < 600 ? raw : 500;
    if (status >= 500) request.log.error({ err }, 'page failed');
    return sendPage(reply, status, render(err as Error, status, request));
  });
}
