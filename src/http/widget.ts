import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../context.js';

/**
 * The booking widget (docs/widget.md): CSS, frame script and page template in ./widget, served
 * as they are; the script is bundled from widget/src/ by `npm run build` (scripts/build-widget.mjs).
 *   GET /widget             full page for an iframe or a link (?ref, channelKey, prdRef, lang, accent)
 *   GET /widget.js          mounts the widget where its <script> tag is (data-ref, data-target, ...)
 *   GET /widget/widget.css  the widget's styles (loaded into its shadow root)
 *   GET /widget/frame.js    reports the page height to an embedding parent (iframe auto-height)
 *   GET /widget/manage.js   the manage page's "choose another time" (the slot picker, then reschedule)
 * Every response carries Access-Control-Allow-Origin: * so any partner site can load it.
 */

const WIDGET_DIR = new URL('../../widget/', import.meta.url);
/** The same path from src/http (tsx, tests) and from dist/http (npm start). */
const BUNDLE = new URL('../../dist/widget/widget.js', import.meta.url);
const HOLD_PLACEHOLDER = '__HOLD_SECONDS__';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function makeAsset(type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return {
    type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

function readWidgetFile(name: string): string {
  return readFileSync(new URL(name, WIDGET_DIR), 'utf8');
}

/** The bundled script with the hold length written in, so its countdown matches the server's hold. */
function widgetScript(holdSeconds: number): string {
  let bundle: string;
  try {
    bundle = readFileSync(BUNDLE, 'utf8');
  } catch {
    throw new Error(`${BUNDLE.pathname} is missing: run npm run build (it bundles the widget)`);
  }
  if (!bundle.includes(HOLD_PLACEHOLDER)) throw new Error(`${BUNDLE.pathname} has no ${HOLD_PLACEHOLDER} to fill in`);
  return bundle.replace(HOLD_PLACEHOLDER, String(holdSeconds));
}

function commonHeaders(reply: FastifyReply): void {
  reply
    .header('access-control-allow-origin', '*')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'Accept-Encoding');
}

function accepts(request: FastifyRequest, encoding: string): boolean {
  return String(request.headers['accept-encoding'] ?? '')
    .split(',')
    .some((part) => {
      const [name, ...params] = part.trim().split(';');
      return name.trim().toLowerCase() === encoding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) {
  commonHeaders(reply);
  reply.header('content-type', asset.type).header('cache-control', cacheControl).header('etag', asset.etag);
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  if (accepts(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? '');
}

/** de or en: the lang parameter, else the browser's Accept-Language, else de. */
function pageLang(lang: unknown, acceptLanguage: string | undefined): 'de' | 'en' {
  if (lang === 'de' || lang === 'en') return lang;
  for (const part of String(acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'de' || tag === 'en') return tag;
  }
  return 'de';
}

const PAGE_TEXT = {
  de: {
    title: 'Termin buchen',
    noscript: 'Bitte aktivieren Sie JavaScript, um einen Termin zu buchen.',
    missing: (name: string) => `Der Link ist unvollständig: ${name} fehlt oder ist ungültig.`,
  },
  en: {
    title: 'Book an appointment',
    noscript: 'Please enable JavaScript to book an appointment.',
    missing: (name: string) => `This link is incomplete: ${name} is missing or invalid.`,
  },
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  'img-src https: data:',
  "base-uri 'none'",
  "form-action 'self'",
  'frame-ancestors *',
].join('; ');

const REF_TEXT = '[^\\s<>"\'`\\u0000]{1,200}';
const PageQuery = Type.Object({
  ref: Type.String({
    pattern: `^\\s*${REF_TEXT}\\s*$`,
    description: 'the resource reference or UUID (a page without it says so, with 400)',
  }),
  channelKey: Type.Optional(Type.String({ pattern: '^(?:[A-Z][A-Z_]{0,63})?$', description: 'e.g. WIDGET' })),
  prdRef: Type.Optional(Type.String({ pattern: `^(?:${REF_TEXT})?$`, description: 'offer only this product' })),
  lang: Type.Optional(Type.String({ description: 'de or en; default from Accept-Language, else de' })),
  accent: Type.Optional(Type.String({ description: 'accent colour #rgb or #rrggbb' })),
});
const tags = ['booking widget'];

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export const widgetRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // Read once at start.
  const script = makeAsset('text/javascript; charset=utf-8', widgetScript(deps.config.reservationHoldSeconds));
  const css = makeAsset('text/css; charset=utf-8', readWidgetFile('widget.css'));
  const frame = makeAsset('text/javascript; charset=utf-8', readWidgetFile('frame.js'));
  const manage = makeAsset('text/javascript; charset=utf-8', readWidgetFile('manage.js'));
  const template = readWidgetFile('page.html');
  const cache = 'public, max-age=300, must-revalidate';

  const assetSchema = (operationId: string, summary: string, type: string) => ({
    tags,
    security: [],
    operationId,
    summary,
    response: {
      200: {
        description: 'the file (gzip when accepted); ETag and Cache-Control for revalidation',
        content: { [type]: { schema: { type: 'string' } } },
      },
      304: { description: 'unchanged since the ETag given in If-None-Match', type: 'null' },
    },
  });
  app.get(
    '/widget.js',
    {
      schema: assetSchema(
        'getWidgetScript',
        'the widget script: mounts the widget where its script tag is (docs/widget.md)',
        'text/javascript',
      ),
    },
    (request, reply) => sendAsset(request, reply, script, cache),
  );
  app.get(
    '/widget/widget.css',
    { schema: assetSchema('getWidgetStyles', "the widget's styles", 'text/css') },
    (request, reply) => sendAsset(request, reply, css, cache),
  );
  app.get(
    '/widget/frame.js',
    {
      schema: assetSchema(
        'getWidgetFrameScript',
        'reports the page height to an embedding parent (iframe auto-height)',
        'text/javascript',
      ),
    },
    (request, reply) => sendAsset(request, reply, frame, cache),
  );
  app.get(
    '/widget/manage.js',
    {
      schema: assetSchema(
        'getWidgetManageScript',
        "the manage page's slot picker for moving a booking",
        'text/javascript',
      ),
    },
    (request, reply) => sendAsset(request, reply, manage, cache),
  );

  const pageSchema = {
    tags,
    security: [],
    operationId: 'getWidgetPage',
    summary: 'the widget as a full page, for an iframe or a link (docs/widget.md)',
    querystring: PageQuery,
    response: {
      200: { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } },
      400: {
        description: 'ref missing or invalid, or channelKey or prdRef malformed: a page saying which',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  };
  const pageHeaders = (reply: FastifyReply) => {
    commonHeaders(reply);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CSP)
      .header('referrer-policy', 'strict-origin-when-cross-origin');
  };
  // a link with a bad query is a page saying which parameter, in the reader's language
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (!err.validation || request.routeOptions.url !== '/widget') throw err;
    const lang = pageLang((request.query as { lang?: unknown }).lang, request.headers['accept-language']);
    const text = PAGE_TEXT[lang];
    const [issue] = err.validation;
    const name = issue?.instancePath.split('/')[1] ?? String(issue?.params.missingProperty ?? 'ref');
    return pageHeaders(reply)
      .status(400)
      .send(
        `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">` +
          '<meta name="viewport" content="width=device-width, initial-scale=1">' +
          `<title>${text.title}</title></head><body><main><h1>${text.title}</h1>` +
          `<p>${escapeHtml(text.missing(name))}</p></main></body></html>`,
      );
  });
  app.get('/widget', { schema: pageSchema }, (request, reply) => {
    const q = request.query;
    const lang = pageLang(q.lang, request.headers['accept-language']);
    const text = PAGE_TEXT[lang];
    const ref = q.ref.trim();
    const channelKey = q.channelKey ?? '';
    const prdRef = q.prdRef ?? '';
    pageHeaders(reply);
    const accent = q.accent && COLOR.test(q.accent) ? q.accent : null;
    const html = fillTemplate(template, {
      lang,
      title: escapeHtml(text.title),
      noscript: escapeHtml(text.noscript),
      themeCss: accent ? `:root { --bw-accent: ${accent}; }` : '',
      scriptSrc: 'widget.js',
      frameSrc: 'widget/frame.js',
      ref: escapeHtml(ref),
      channelKey: escapeHtml(channelKey),
      prdRef: escapeHtml(prdRef),
    });
    if (accepts(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(gzipSync(html));
    return reply.send(html);
  });
};
