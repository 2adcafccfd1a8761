/**
 * The request-schema conventions (src/http/requestSchema.ts): every pattern a schema publishes
 * admits only values the server then takes (held to the parser behind it, for any value drawn from
 * the pattern), NUL-free strings, and the 400 each combination of members words.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { compilePattern, DATE_PATTERN_FORM } from '../../src/booking/datePattern.js';
import { describeValidation } from '../../src/http/validationMessage.js';
import { IDEMPOTENCY_KEY_PATTERN, parseKey } from '../../src/http/idempotency.js';
import { ProductBody, ProfileBody, ResourceBody } from '../../src/http/offeringSchemas.js';
import { NUL_FREE, nulFree, PATH_SEGMENT } from '../../src/http/requestSchema.js';
import { AppointmentBody } from '../../src/http/schedulingSchemas.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { urlPattern } from '../../src/net/destination.js';
import { ISO_DATE_TIME_PATTERN } from '../../src/scheduling/time.js';
import { seeded } from '../helpers/property.js';

const runs = { numRuns: 300 };

describe('patterns admit only what the server takes', () => {
  it('every ISO date-time of the pattern is a valid luxon time with an instant in the years 1900 to 9999', () => {
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(ISO_DATE_TIME_PATTERN)), (value) => {
        const dt = DateTime.fromISO(value, {
          zone: /T.*(Z|[+-]\d{2}(:?\d{2})?)$/.test(value) ? 'UTC' : 'Pacific/Kiritimati',
        });
        expect(dt.isValid, value).toBe(true);
        expect(dt.toUTC().year).toBeGreaterThanOrEqual(1900);
        expect(dt.toUTC().year).toBeLessThanOrEqual(9999);
      }),
      seeded('iso date-time pattern', runs),
    );
  });

  it('every URL of the pattern parses (WHATWG URL) with its scheme', () => {
    const pattern = new RegExp(urlPattern(['https', 'http', 'webcal']));
    fc.assert(
      fc.property(fc.stringMatching(pattern), (value) => {
        expect(['http:', 'https:', 'webcal:']).toContain(new URL(value).protocol);
      }),
      seeded('url pattern', runs),
    );
  });

  it('a date pattern matches the form exactly when the formatter compiles it', () => {
    const form = new RegExp(DATE_PATTERN_FORM, 'u');
    const compiles = (p: string) => {
      try {
        compilePattern(p);
        return true;
      } catch {
        return false;
      }
    };
    const letters = fc.constantFrom(..."yyyMMMdHHmmsSEeVVzZXxaGLDukhKwq'' -:.,ä");
    fc.assert(
      fc.property(
        fc.array(letters, { maxLength: 12 }).map((a) => a.join('')),
        (p) => {
          expect(form.test(p), p).toBe(compiles(p));
        },
      ),
      seeded('date pattern form', { numRuns: 1000 }),
    );
  });

  it('an Idempotency-Key of the pattern is 1 to 255 visible ASCII characters after its quotes are taken off', () => {
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(IDEMPOTENCY_KEY_PATTERN)), (value) => {
        expect(parseKey(value)).toMatch(/^[\x21-\x7e]{1,255}$/);
      }),
      seeded('idempotency key pattern', runs),
    );
  });
});

describe('path segments', () => {
  it('PATH_SEGMENT takes every segment a URL carries as sent, and no . or .. (resolved away) or NUL', () => {
    const segment = new RegExp(PATH_SEGMENT, 'u');
    for (const value of ['a', 'res@crm', '...', '.a', 'a.', '..a', 'ü/ß']) {
      expect(segment.test(value), value).toBe(true);
    }
    for (const value of ['', '.', '..', 'a\u0000']) expect(segment.test(value), value).toBe(false);
  });
});

describe('nulFree', () => {
  it('gives every string without pattern, enum or const the NUL-free pattern, nested too; conditions stay', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string', pattern: '^x$' },
        c: { type: 'string', enum: ['x'] },
        d: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        e: { type: 'array', items: { type: 'string' } },
      },
      not: { properties: { a: { type: 'string' } } },
    };
    const out = nulFree(schema) as { properties: Record<string, Record<string, unknown>>; not: unknown };
    expect(out.properties.a.pattern).toBe(NUL_FREE);
    expect(out.properties.b.pattern).toBe('^x$');
    expect(out.properties.c.pattern).toBeUndefined();
    expect((out.properties.d.anyOf as Record<string, unknown>[])[0].pattern).toBe(NUL_FREE);
    expect((out.properties.e.items as Record<string, unknown>).pattern).toBe(NUL_FREE);
    expect(out.not).toEqual(schema.not);
    expect(schema.properties.a).toEqual({ type: 'string' });
  });
});

/** The 400 message the route would answer for `body`. */
function messageFor(schema: unknown, body: unknown): string | null {
  const validate = validatorCompiler({
    schema: nulFree(schema) as object,
    httpPart: 'body',
    method: 'POST',
    url: '/x',
  }) as unknown as {
    (v: unknown): boolean;
    errors: Parameters<typeof describeValidation>[0];
  };
  return validate(structuredClone(body)) ? null : describeValidation(validate.errors, 'body');
}

describe('the 400 of each combination names the field and the rule', () => {
  const label = { de: 'F', en: 'Q' };

  it('a contact channel type given twice', () => {
    const channels = [
      { type: 'link', value: 'https://a.example' },
      { type: 'link', value: 'https://b.example' },
    ];
    expect(
      messageFor(ProfileBody, {
        reference: 'p@x',
        userReference: 'u@x',
        providerReference: 'pr@x',
        name: 'N',
        contactChannels: channels,
      }),
    ).toBe('body.contactChannels has more than one channel of type link; only one channel per type can exist');
  });

  it('contactProfileReference without contact', () => {
    expect(
      messageFor(ResourceBody, { reference: 'r', publicName: 'P', internalName: 'I', contactProfileReference: 'cp@x' }),
    ).toBe('body.contact is required when contactProfileReference is given');
    expect(
      messageFor(ResourceBody, { reference: 'r', publicName: 'P', internalName: 'I', contactProfileReference: null }),
    ).toBeNull();
  });

  it('options on a text question, maxLength on an email question, a select without options, an unknown type', () => {
    const product = (question: object) => ({
      reference: 'p',
      name: 'P',
      questions: [{ key: 'q', label, ...question }],
    });
    expect(messageFor(ProductBody, product({ type: 'text', options: [{ value: 'a', label }] }))).toMatch(
      /^body\.questions\.0\.options is not allowed for a question of type text \(options: select only/,
    );
    expect(messageFor(ProductBody, product({ type: 'email', maxLength: 20 }))).toMatch(
      /^body\.questions\.0\.maxLength is not allowed for a question of type checkbox, email or phone/,
    );
    expect(messageFor(ProductBody, product({ type: 'textarea', maxLength: 2001 }))).toBe(
      'body.questions.0.maxLength must be <= 2000',
    );
    expect(messageFor(ProductBody, product({ type: 'select' }))).toBe('body.questions.0.options is required');
    expect(messageFor(ProductBody, product({ type: 'radio' }))).toBe(
      'body.questions.0.type must be one of text, textarea, select, checkbox, email, phone',
    );
  });

  it('the members a single appointment or a series requires', () => {
    const base = { resourceReference: 'r', productReference: 'p' };
    expect(messageFor(AppointmentBody, { ...base, reference: 'a', start: '2026-06-01T10:00' })).toBe(
      'body.end is required for a single appointment',
    );
    expect(
      messageFor(AppointmentBody, {
        ...base,
        series_data: { from: '2026-06-01', to: '2026-06-02', raster: 30 },
        from: '2026-06-01T10:00',
      }),
    ).toBe('body.to is required for a series');
    const single = { ...base, reference: 'a', start: '2026-06-01T10:00', end: '2026-06-01T11:00' };
    expect(
      messageFor(AppointmentBody, {
        ...single,
        participations: [{ name: 'N', email: 'n@example.com', state: 'BOOKED' }],
      }),
    ).toBe('body.participations.0.reference is required for a single appointment');
    expect(messageFor(AppointmentBody, single)).toBeNull();
  });

  it('a NUL character and a date that does not exist', () => {
    expect(messageFor(ResourceBody, { reference: 'r\u0000', publicName: 'P', internalName: 'I' })).toBe(
      'body.reference must not contain NUL characters',
    );
    expect(
      messageFor(AppointmentBody, {
        resourceReference: 'r',
        productReference: 'p',
        reference: 'a',
        start: '2026-02-29T10:00',
        end: '2026-03-01',
      }),
    ).toMatch(/^body\.start must be an ISO 8601 date-time/);
  });
});
