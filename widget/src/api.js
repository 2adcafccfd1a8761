/** The public booking flow (A1-A5 in docs/api.md) of the service the widget was loaded from. */
import { idempotencyKeys } from './idempotency.js';

export const REQUEST_TIMEOUT_MS = 20000;

export class ApiError extends Error {
  /**
   * @param {number} status 0 for network errors and timeouts
   * @param {{ errorCode?: string, message?: string }[]} errors the service's error items
   */
  constructor(status, errors) {
    super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`);
    this.status = status;
    this.errors = errors;
    this.code = errors[0]?.errorCode;
  }
}

/**
 * @param {string} base service base URL ending in /
 * @param {{ ref: string, channelKey: string }} opts
 * @param {{ fetch?: typeof fetch, timeoutMs?: number }} [io] for tests
 */
export function createApi(base, opts, io = {}) {
  const doFetch = io.fetch || ((/** @type {Parameters<typeof fetch>} */ ...args) => fetch(...args));
  const timeoutMs = io.timeoutMs || REQUEST_TIMEOUT_MS;
  const retryable = idempotencyKeys();

  /**
   * @param {'GET'|'POST'} method
   * @param {string} path relative to base
   * @param {Record<string, string | undefined>} query empty values are left out
   * @param {object} [body]
   * @param {boolean} [idempotent] send an Idempotency-Key (reserve, book)
   * @returns {Promise<any>} the JSON answer, null for 204
   */
  async function call(method, path, query, body, idempotent = false) {
    const url = new URL(path, base);
    for (const [k, v] of Object.entries(query)) if (v) url.searchParams.set(k, v);
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), timeoutMs);
    const text = body ? JSON.stringify(body) : undefined;
    const attempt = idempotent ? retryable.keyFor(url.toString(), text) : null;
    /** @type {Record<string, string>} */
    const headers = body
      ? { 'Content-Type': 'application/json', Accept: 'application/json' }
      : { Accept: 'application/json' };
    if (attempt) headers['Idempotency-Key'] = attempt.key;
    let res;
    try {
      res = await doFetch(url.toString(), {
        method,
        mode: 'cors',
        credentials: 'omit',
        headers,
        body: text,
        signal: ctrl.signal,
      });
    } catch {
      if (attempt) retryable.failed(attempt);
      throw new ApiError(0, []);
    } finally {
      clearTimeout(timer);
    }
    if (attempt) retryable.answered();
    if (res.status === 204) return null;
    let data = null;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data && Array.isArray(data.errors) ? data.errors : []);
    return data;
  }

  const enc = encodeURIComponent;
  const ch = opts.channelKey;
  // on a pool: A1-A3 go to the pool ("anyone"), or to the member chosen (chooseMember)
  let target = opts.ref;
  return {
    /** A1-A3 on this member of the pool, or on the pool again (null) @param {string | null} ref */
    chooseMember: (ref) => {
      target = ref || opts.ref;
    },
    /** A5 */
    publicData: () => call('POST', 'resources/public_data', { ref: opts.ref, channelKey: ch }),
    /** A4, the questions' labels in `languageTag` @param {string} languageTag */
    activeProducts: (languageTag) =>
      call('POST', 'products/active_products', { ref: opts.ref, channelKey: ch, languageTag }),
    /** A1 @param {string | undefined} prdRef @param {string} languageTag */
    bookables: (prdRef, languageTag) =>
      call('GET', `resources/${enc(target)}/upcoming_bookables`, {
        channelKey: ch,
        prdRef,
        groupFormat: 'yyyy-MM-dd',
        timeFormat: 'HH:mm',
        languageTag,
      }),
    /** A2 @param {object} body */
    reserve: (body) =>
      call('POST', `rest/1/resources/${enc(target)}/reserve_appointment`, { channelKey: ch }, body, true),
    /** A3 @param {object} body */
    book: (body) =>
      call('POST', `resources/${enc(target)}/create_appointment_with_consumer`, { timeFormat: 'HH:mm' }, body, true),
    /** "my bookings": a link to this address's bookings here, by mail @param {string} email @param {string} locale */
    myBookings: (email, locale) => call('POST', 'rest/1/my-bookings', { ref: opts.ref }, { email, locale }),
  };
}

/** @typedef {ReturnType<typeof createApi>} Api */
