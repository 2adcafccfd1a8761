/**
 * The service's log options (docs/privacy.md, Logs): no API key, and no consumer's e-mail, mobile
 * or name at any level. Request lines carry the URL, so the query values that can identify a
 * person (consumer-data?email=...) are replaced; bodies are never logged.
 */
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are personal data. */
const PERSONAL_QUERY = new Set(['email', 'mobile', 'phone', 'name', 'firstname', 'lastname']);

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        /* keep it as sent */
      }
      return PERSONAL_QUERY.has(name.toLowerCase()) && eq >= 0 ? `${key}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export function loggerOptions(level: string): object {
  return {
    level,
    redact: {
      paths: ['req.headers["x-service-client-id"]', 'req.headers.authorization', 'req.headers.cookie'],
      remove: true,
    },
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
