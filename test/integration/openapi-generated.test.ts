/**
 * What the document says is what the server checks (issue 57), tried as an integrator's tools do:
 * requests generated from the served /openapi.json for every operation in it (later ones too, with
 * no change here), sent through the real app.
 *   - Valid ones (test/helpers/schemaArbitrary.ts): no answer is a 5xx, and none is a 400 except
 *     for a rule the schema cannot state, listed in RULES_IN_WORDS with its reason, which the
 *     operation's description must word (src/http/requestSchema.ts beyondSchema).
 *   - Invalid ones, one violated keyword at a time (test/helpers/schemaMutations.ts): each is a 400
 *     naming the field.
 * Path parameters and members named like the test's own records (HINTS) take those half the time,
 * so requests also get past "not found" into the rules behind it. GENERATED_REQUESTS raises the
 * number of valid requests per operation (2 by default); PROPERTY_SEED replays a run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, type Partner, type TestApp } from '../helpers/app.js';
import { createTimeslots, flatten, setupBooking, upcoming, type Booking } from '../helpers/bookingFixtures.js';
import { bookSlot } from '../helpers/lifecycleFixtures.js';
import { PROPERTY_SEED } from '../helpers/property.js';
import { documentAjv, valueArbitrary, type Formats, type Hints, type Schema } from '../helpers/schemaArbitrary.js';
import { mutations, type Mutation } from '../helpers/schemaMutations.js';
import { createAppointment, createCustomer, type Scheduling } from '../helpers/schedulingFixtures.js';

const VALID_PER_OPERATION = Number(process.env.GENERATED_REQUESTS ?? 2);
const INVALID_PER_OPERATION = Math.ceil(VALID_PER_OPERATION / 2);

/**
 * The 400s a valid request may get: rules JSON Schema cannot state, by operationId. `rule` matches
 * the 400's message, `words` is what the operation's description says of it, `why` why no schema can.
 */
interface RuleInWords {
  rule: RegExp;
  words: string;
  why: string;
}
const ORDER = 'one value compared with another (JSON Schema compares no two values)';
const STATE = "depends on what is stored (the resource's products, its slots, a reservation), not on the request alone";
const UNIQUE = 'uniqueness of one member across array items (uniqueItems compares whole items)';
const PATH = 'a body member equal to a path parameter (a schema sees one part of the request)';
const endAfterStart: RuleInWords = { rule: /end must be after .*start/, words: 'end after', why: ORDER };
const toAfterFrom: RuleInWords = { rule: /query\.to must be after query\.from/, words: 'to after from', why: ORDER };
const ambiguous: RuleInWords = { rule: /is ambiguous/, words: 'must name a resource of one provider only', why: STATE };
const slot: RuleInWords[] = [
  { rule: /must be after/, words: 'the end after the start', why: ORDER },
  {
    rule: /must be a bookable slot of timeslot|must be the appointment's (start|end)/,
    words: 'those of a listed slot',
    why: STATE,
  },
  {
    rule: /product_uuid .*(is required|is not a product)/,
    words: 'a product of the resource on the channel',
    why: STATE,
  },
];
const refusedUrl: RuleInWords = {
  rule: /is refused: /,
  words: 'refused address',
  why: 'where a host name resolves to is known only by asking DNS',
};
const questions: RuleInWords[] = [
  { rule: /is used by an earlier (question|option)/, words: 'unique in the', why: UNIQUE },
  {
    rule: /minDuration.* must not be greater than .*maxDuration/,
    words: 'minDuration not greater than maxDuration',
    why: ORDER,
  },
];
const availabilityRule: RuleInWords[] = [
  { rule: /\.to must be after .*\.from/, words: 'each window ends after it starts', why: ORDER },
  { rule: /windows must not overlap/, words: 'no window overlaps another', why: 'a relation between array items' },
  { rule: /validUntil must not be before|validFrom must not be after/, words: 'validUntil not before', why: ORDER },
];
const poolTwice: RuleInWords = { rule: /is named twice/, words: 'no resource named twice', why: UNIQUE };
const profileOfContact: RuleInWords = {
  rule: /contactProfileReference .*(does not belong|another provider)/,
  words: 'a profile of the user in contact',
  why: STATE,
};

const RULES_IN_WORDS: Record<string, RuleInWords[]> = {
  createProvider: [
    {
      rule: /timeZone must be an IANA time zone/,
      words: 'IANA tz database',
      why:
        'the zones are the tz database of the running server: it grows and renames with releases ' +
        'and takes aliases in any case',
    },
  ],
  updateProvider: [{ rule: /timeZone must be an IANA time zone/, words: 'IANA tz database', why: 'as createProvider' }],
  createProduct: questions,
  updateProduct: questions,
  createResource: [
    { rule: /already exists \(onDuplicateRaise=true\)/, words: 'onDuplicateRaise=true', why: STATE },
    profileOfContact,
  ],
  updateResource: [profileOfContact],
  upsertContactProfile: [
    {
      rule: /providerReference must be the provider of the path/,
      words: 'providerReference equal to the path',
      why: PATH,
    },
  ],
  createTimeslots: [
    endAfterStart,
    { rule: /reference .* is given twice/, words: 'each given reference once', why: UNIQUE },
  ],
  listTimeslots: [toAfterFrom],
  createPool: [poolTwice],
  changePool: [poolTwice],
  createAvailabilityRule: availabilityRule,
  changeAvailabilityRule: availabilityRule,
  updateTimeslot: [endAfterStart],
  createAppointments: [
    endAfterStart,
    { rule: /reference .* is given twice/, words: 'each inline participation reference once', why: UNIQUE },
    { rule: /series_data\.to must not be before/, words: 'series_data.to not before series_data.from', why: ORDER },
    { rule: /series_data may span at most/, words: 'at most', why: ORDER },
    {
      rule: /weekdays is required when/,
      words: 'weekdays required when it spans more than one day',
      why: 'a member required by the distance of two dates',
    },
    { rule: /must be a later time of day than/, words: 'time of day later', why: ORDER },
    {
      rule: /at most \d+ appointments|gives no appointment/,
      words: 'appointments',
      why: 'the number of appointments dates, weekdays, window and raster make',
    },
  ],
  addParticipation: [{ rule: /already exists \(onDuplicateRaise=true\)/, words: 'onDuplicateRaise=true', why: STATE }],
  createCustomer: [
    {
      rule: /providerReference must be the provider of the path/,
      words: 'providerReference equal to the path',
      why: PATH,
    },
  ],
  createClosure: [endAfterStart, { rule: /lasts at most \d+ days/, words: 'days later', why: ORDER }],
  listClosures: [toAfterFrom],
  listBusyTimes: [toAfterFrom, { rule: /at most \d+ days after query\.from/, words: 'days later', why: ORDER }],
  createCalendarSubscription: [refusedUrl],
  createWebhook: [refusedUrl],
  updateWebhook: [refusedUrl],
  listUpcomingBookables: [ambiguous],
  reserveAppointment: [...slot, ambiguous],
  createAppointmentWithConsumer: [
    ...slot,
    {
      rule: /placeholder_id belongs to a reservation of another slot/,
      words: 'a reservation of this very slot',
      why: STATE,
    },
    { rule: /body\.answers\./, words: "answers as the product's questions ask", why: STATE },
    {
      rule: /body\.mobile is not a phone number/,
      words: 'numbering plan allows',
      why: "which numbers a country allows is the numbering plans' data (libphonenumber), not a pattern",
    },
    ambiguous,
  ],
  rescheduleBooking: [
    ...slot,
    {
      rule: /body\.pool_uuid|must be a listed slot of pool/,
      words: 'pool_uuid the pool the booking was made through',
      why: STATE,
    },
  ],
  listActiveProducts: [ambiguous],
  getPublicData: [ambiguous],
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
  style?: string;
  explode?: boolean;
}
interface Operation {
  method: string;
  path: string;
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}
interface Drawn {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body?: unknown;
}

let t: TestApp;
let partner: Partner;
let doc: { paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };
let hints: Hints;
const ajv = documentAjv();

/** Every URL a generated request names points at this machine's discard port: no request leaves it. */
const formats: Formats = { uri: fc.stringMatching(/^(?:https?|webcal):\/\/127\.0\.0\.1:9\/[a-z]{0,8}$/) };

beforeAll(async () => {
  // the destination checks stay on in production; here they would refuse every loopback URL before anything else
  t = await startTestApp({ webhookAllowPrivateNetworks: true, calendarAllowPrivateNetworks: true });
  partner = await newPartner(t);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  hints = await records(await setupBooking(t, { partner }));
}, 60_000);
afterAll(() => t?.close());

/** The test's own records, by the names of the members and parameters that take them. */
async function records(b: Booking): Promise<Hints> {
  const [ts] = await createTimeslots(b, [{}]);
  const [listed] = flatten(await upcoming(t, b.resource.reference));
  const booked = await bookSlot(t, b, listed);
  const s: Scheduling = {
    p: partner,
    provider: b.provider,
    base: b.base,
    resourceRef: b.resource.reference,
    productRef: b.product.reference,
  };
  const appointment = await createAppointment(s, { start: '2026-06-03T09:00', end: '2026-06-03T10:00' });
  const customer = await createCustomer(s);
  const hook = (await partner.call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook' })).json().webhook;
  const { ownerRef, accountRef, providerRef } = b.provider;
  return {
    reference: [ownerRef, accountRef, providerRef],
    providerRef: [providerRef],
    providerReference: [providerRef],
    ownerReference: [ownerRef],
    accountReference: [accountRef],
    userRef: [ownerRef],
    userReference: [ownerRef],
    contact: [ownerRef],
    productRef: [b.product.reference],
    productReference: [b.product.reference],
    prdRef: [b.product.reference],
    product_uuid: [b.product.uuid],
    resourceRef: [b.resource.reference],
    resourceReference: [b.resource.reference],
    ref: [b.resource.reference, b.resource.uuid],
    timeslotRef: [ts.reference],
    timeslot_uuid: [ts.uuid, booked.appointment_uuid],
    appointment_uuid: [booked.appointment_uuid],
    appointmentReference: [appointment.reference],
    customerRef: [customer.customerReference],
    customerReference: [customer.customerReference],
    start: [listed.start],
    end: [listed.end],
    from: [listed.start],
    to: [listed.end],
    token: [booked.token],
    id: [hook.id],
  };
}

function operations(): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
  );
}

const bodySchemaOf = (o: Operation) => o.requestBody?.content['application/json']?.schema;
/** A query parameter that stands for the whole query (style form, explode: requestSchema.ts QueryObject). */
const isQueryObject = (p: Parameter) => p.in === 'query' && p.schema.type === 'object';

/** A named value: one of the hints for that name half the time, when the schema takes it. */
function member(name: string, schema: Schema): fc.Arbitrary<unknown> {
  const own = valueArbitrary(schema, formats, hints);
  const known = (hints[name] ?? []).filter((v) => ajv.validate(schema, v));
  return known.length > 0 ? fc.oneof(fc.constantFrom(...known), own) : own;
}

function requestArbitrary(o: Operation): fc.Arbitrary<Drawn> {
  const part = (where: Parameter['in']) => {
    const entries = (o.parameters ?? [])
      .filter((p) => p.in === where)
      .map((p) => {
        if (p.name === 'crmId') return [p.name, fc.constant(partner.crmId)] as const;
        // a path segment is never empty: an empty one names another path
        const schema =
          p.in === 'path' ? { ...p.schema, minLength: Math.max(1, (p.schema.minLength as number) ?? 0) } : p.schema;
        const value = member(p.name, schema);
        return [p.name, p.required ? value : fc.option(value, { nil: undefined })] as const;
      });
    return fc.record(Object.fromEntries(entries));
  };
  const schema = bodySchemaOf(o);
  const body = schema ? valueArbitrary(schema, formats, hints) : fc.constant(undefined);
  return fc.record({
    params: part('path'),
    query: part('query'),
    headers: part('header'),
    body: o.requestBody && o.requestBody.required === false ? fc.option(body, { nil: undefined }) : body,
  });
}

/** The query as the server reads it: arrays repeated, a QueryObject's members as parameters. */
function queryString(o: Operation, query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  const add = (name: string, value: unknown) => {
    if (value === undefined) return;
    if (Array.isArray(value)) for (const v of value) add(name, v);
    else search.append(name, String(value));
  };
  for (const p of (o.parameters ?? []).filter((q) => q.in === 'query')) {
    const value = query[p.name];
    if (isQueryObject(p) && value) for (const [k, v] of Object.entries(value as object)) add(k, v);
    else add(p.name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function send(o: Operation, d: Drawn) {
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(d.params[name])));
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(d.headers)) if (value !== undefined) headers[name] = String(value);
  if (o.path.startsWith('/crms/')) headers['x-service-client-id'] = partner.key;
  const withBody = d.body !== undefined;
  if (withBody) headers['content-type'] = 'application/json';
  return t.app.inject({
    method: o.method as 'GET',
    url: `${path}${queryString(o, d.query)}`,
    headers,
    ...(withBody ? { payload: JSON.stringify(d.body) } : {}),
  });
}

const describeRequest = (o: Operation, d: Drawn) => `${o.operationId} ${JSON.stringify(d).slice(0, 600)}`;
const messageOf = (body: string) => {
  try {
    return String(JSON.parse(body).errors?.[0]?.message ?? body);
  } catch {
    return body;
  }
};

describe('requests generated from the served document', () => {
  it('lists only rules the descriptions word, of operations in the document', () => {
    const byId = new Map(operations().map((o) => [o.operationId, o]));
    for (const [id, rules] of Object.entries(RULES_IN_WORDS)) {
      expect(byId.has(id), id).toBe(true);
      for (const r of rules) expect(byId.get(id)!.description ?? '', `${id}: ${r.rule}`).toContain(r.words);
    }
  });

  it('valid requests of every operation: never a 5xx, and a 400 only for a rule in words', async () => {
    const problems: string[] = [];
    const statuses = new Map<string, number>();
    const ops = operations();
    console.info(
      `[generated] ${ops.length} operations, ${VALID_PER_OPERATION} valid requests each; ` +
        `replay with PROPERTY_SEED=${PROPERTY_SEED}`,
    );
    for (const [i, o] of ops.entries()) {
      for (const d of fc.sample(requestArbitrary(o), { numRuns: VALID_PER_OPERATION, seed: PROPERTY_SEED + i })) {
        const res = await send(o, d);
        const rule = (RULES_IN_WORDS[o.operationId] ?? []).find((r) => r.rule.test(messageOf(res.body)));
        const listed = res.statusCode === 400 && rule !== undefined;
        const key = listed ? `400 ${o.operationId} ${rule.rule.source}` : String(res.statusCode);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (res.statusCode >= 500 || (res.statusCode === 400 && !listed))
          problems.push(`${res.statusCode} ${messageOf(res.body).slice(0, 300)}\n    ${describeRequest(o, d)}`);
      }
    }
    console.info(
      `[generated] answers: ${[...statuses]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('; ')}`,
    );
    expect(problems).toEqual([]);
  }, 300_000);

  it('invalid requests, one keyword broken at one place, of every operation: 400 naming the field', async () => {
    const problems: string[] = [];
    const keywords = new Map<string, number>();
    let sent = 0;
    for (const [i, o] of operations().entries()) {
      for (const [j, d] of fc
        .sample(requestArbitrary(o), { numRuns: INVALID_PER_OPERATION, seed: PROPERTY_SEED + 10_000 + i })
        .entries()) {
        const candidates = brokenVariants(o, d);
        if (candidates.length === 0) continue;
        const [pick] = fc.sample(fc.constantFrom(...candidates), {
          numRuns: 1,
          seed: PROPERTY_SEED + 20_000 + 100 * i + j,
        });
        const res = await send(o, pick.request);
        sent++;
        keywords.set(pick.keyword, (keywords.get(pick.keyword) ?? 0) + 1);
        // a page (the widget's) names the parameter as its reader knows it: ref, not query.ref
        const page = res.headers['content-type']?.toString().startsWith('text/html');
        const text = page ? res.body : messageOf(res.body);
        const named = pick.names.every((name) => text.includes(page ? name.split('.').pop()! : name));
        if (res.statusCode !== 400 || !named)
          problems.push(
            `${res.statusCode} (wanted 400 naming ${pick.names.join(', ')}; ${pick.keyword}) ${text.slice(0, 300)}\n` +
              `    ${describeRequest(o, pick.request)}`,
          );
      }
    }
    console.info(
      `[generated] ${sent} invalid requests, keywords broken: ${[...keywords]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('; ')}`,
    );
    expect(sent).toBeGreaterThan(operations().length / 2);
    expect(problems).toEqual([]);
  }, 300_000);
});

interface Broken {
  request: Drawn;
  keyword: string;
  /** what the 400 must name */
  names: string[];
}

const validatorOf = (schema: Schema) => ajv.compile(schema);

/** Every variant of `d` with one keyword broken, held to the document (it must fail there). */
function brokenVariants(o: Operation, d: Drawn): Broken[] {
  const out: Broken[] = [];
  const keep = (request: Drawn, m: Mutation, prefix: string, schema: Schema, value: unknown) => {
    if (ajv.validate(schema, value)) return;
    const names = m.names ?? [[prefix, ...m.path].filter(Boolean).join('.')];
    out.push({ request, keyword: m.keyword, names });
  };
  const body = bodySchemaOf(o);
  if (body && d.body !== undefined) {
    for (const m of mutations(body, d.body, 'body', validatorOf)) {
      const value = m.apply(d.body);
      keep({ ...d, body: value }, m, 'body', body, value);
    }
  }
  for (const p of o.parameters ?? []) {
    const value = p.in === 'path' ? d.params[p.name] : p.in === 'query' ? d.query[p.name] : d.headers[p.name];
    if (value === undefined || p.name === 'crmId') continue;
    const part = p.in === 'path' ? 'param' : p.in;
    const context = p.in === 'path' ? 'params' : p.in;
    for (const m of mutations(p.schema, value, part, validatorOf)) {
      const changed = m.apply(value);
      const request = {
        ...d,
        [p.in === 'path' ? 'params' : p.in === 'query' ? 'query' : 'headers']: {
          ...d[p.in === 'path' ? 'params' : p.in === 'query' ? 'query' : 'headers'],
          [p.name]: changed,
        },
      };
      // a QueryObject's members are parameters of their own: query.email, not query.person.email
      const prefix = isQueryObject(p) ? 'query' : `${context}.${p.name}`;
      if (changed === undefined && !p.required) continue;
      keep(request, m, prefix, p.schema, changed);
    }
  }
  return out;
}
