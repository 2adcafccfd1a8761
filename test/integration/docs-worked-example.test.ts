/**
 * docs/api.md's worked example runs as printed, today: its shell blocks are read from the file,
 * each curl command is taken apart as bash would (quotes, $VARIABLES, D=$(date -d tomorrow +%F)) and
 * sent to the live service with the partner and key the example names. A UUID the example writes as
 * `2811903f-...` is what a reader puts in from an earlier answer: the printed answer names its member
 * ("timeslot_uuid":"2811903f-..."), and the test takes that member of the real answer. Each printed
 * answer's status must be the real one, every other command must succeed.
 */
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureKey } from '../../src/partners/apiKeys.js';
import { startTestApp, TestClock, type TestApp } from '../helpers/app.js';

/** The service runs on the real clock: the example books tomorrow, as the reader does. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestApp({}, new WallClock());
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await ensureKey(t.db, 'acme', 'secret-acme-key');
});
afterAll(() => t.close());

const section = (() => {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  return text.slice(text.indexOf('## Worked example'));
})();

/** The fenced blocks of the section, in order: sh (commands) and json (printed answers). */
const blocks = [...section.matchAll(/```(sh|json)\n([\s.\S]*?)```/g)].map((m) => ({ kind: m[1], text: m[2] }));

type Vars = Record<string, string>;

/** Words and line ends of a shell text, as bash splits them: quotes, variables, comments. */
function shellWords(text: string, vars: Vars): (string | '\n')[] {
  const out: (string | '\n')[] = [];
  let word: string | null = null;
  const expand = (name: string) => {
    if (!(name in vars)) throw new Error(`the example uses $${name} before setting it`);
    return vars[name];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let part = '';
      while (text[j] !== '"') {
        if (text[j] === '$') {
          const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(j + 1))![0];
          part += expand(name);
          j += name.length + 1;
        } else part += text[j++];
      }
      word = (word ?? '') + part;
      i = j;
    } else if (c === '$' && text.startsWith('$(', i)) {
      const end = text.indexOf(')', i);
      const command = text.slice(i + 2, end);
      if (command !== 'date -d tomorrow +%F') throw new Error(`unknown command substitution $(${command})`);
      word = (word ?? '') + DateTime.now().plus({ days: 1 }).toISODate();
      i = end;
    } else if (c === '$') {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))![0];
      word = (word ?? '') + expand(name);
      i += name.length;
    } else if (c === '#' && word === null) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== null) out.push(word);
      word = null;
      if (c === '\n') out.push('\n');
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** as printed, for messages */
  printed: string;
}

/** The statements of a shell text: split at line ends outside quotes. */
function statementsOf(text: string): string[] {
  const out = [''];
  let quote: string | null = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\n') {
      out.push('');
      continue;
    }
    out[out.length - 1] += c;
  }
  return out;
}

/** The curl commands of a sh block, each expanded with the variables set before it. */
function commands(text: string, vars: Vars): Request[] {
  const requests: Request[] = [];
  for (const statement of statementsOf(text)) {
    const s = shellWords(statement, vars).filter((w): w is string => w !== '\n');
    if (s.length === 0) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(s[0]);
    if (assignment && s.length === 1) {
      vars[assignment[1]] = assignment[2];
      continue;
    }
    expect(s[0], `a command of the example: ${s.join(' ')}`).toBe('curl');
    const request: Request = { method: 'GET', url: '', headers: {}, printed: s.join(' ') };
    for (let i = 1; i < s.length; i++) {
      const arg = s[i];
      if (arg === '-s') continue;
      else if (arg === '-X') request.method = s[++i];
      else if (arg === '-H') {
        const [name, ...value] = s[++i].split(':');
        request.headers[name.trim().toLowerCase()] = value.join(':').trim();
      } else if (arg === '--json') {
        request.body = s[++i];
        request.headers['content-type'] = 'application/json';
        request.headers.accept = 'application/json';
        if (request.method === 'GET') request.method = 'POST';
      } else if (/^https?:\/\//.test(arg)) request.url = arg;
      else throw new Error(`an argument the test does not know: ${arg}`);
    }
    requests.push(request);
  }
  return requests;
}

/** The printed answers of a json block: status and text. */
function printedAnswers(text: string): { status: number; text: string }[] {
  return text
    .split(/\n(?=\d{3} )/)
    .filter((a) => /^\d{3} /.test(a))
    .map((a) => ({ status: Number(a.slice(0, 3)), text: a.slice(4) }));
}

/** The first value of a member `key` in a JSON value, depth first. */
function firstMember(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstMember(item, key);
      if (found !== undefined) return found;
    }
  } else if (value && typeof value === 'object') {
    if (key in value) return (value as Record<string, unknown>)[key];
    for (const item of Object.values(value)) {
      const found = firstMember(item, key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

describe('docs/api.md, Worked example', () => {
  it('has the shell blocks and answers it describes, with no date of its own and no language on C1', () => {
    expect(blocks.filter((b) => b.kind === 'sh').length).toBeGreaterThanOrEqual(7);
    expect(section).not.toMatch(/\b20\d\d-\d\d-\d\dT/); // times are relative: tomorrow
    const createUser = blocks.find((b) => b.kind === 'sh' && b.text.includes('/crms/acme/user'))!;
    expect(createUser.text).not.toContain('"language"');
  });

  it('runs as printed against the live service, today', async () => {
    const vars: Vars = {};
    /** "2811903f-..." as printed -> the UUID of this run */
    const placeholders = new Map<string, string>();
    let pending: { request: Request; status: number; body: unknown }[] = [];
    let ran = 0;

    for (const block of blocks) {
      if (block.kind === 'sh') {
        // answers nobody printed must still be successes
        for (const p of pending) expect(p.status, `${p.request.printed}\n${JSON.stringify(p.body)}`).toBeLessThan(300);
        pending = [];
        for (const request of commands(block.text, vars)) {
          let { url, body } = request;
          for (const [printed, real] of placeholders) {
            url = url.split(printed).join(real);
            body = body?.split(printed).join(real);
          }
          expect(
            `${url} ${body ?? ''}`,
            `a UUID to put in that no earlier answer named: ${request.printed}`,
          ).not.toMatch(/[0-9a-f]{8}-\.\.\./);
          const target = new URL(url);
          expect(target.origin).toBe(vars.S);
          const res = await fetch(`${baseUrl}${target.pathname}${target.search}`, {
            method: request.method,
            headers: request.headers,
            body,
          });
          const text = await res.text();
          pending.push({ request, status: res.status, body: text ? JSON.parse(text) : null });
          ran++;
        }
      } else {
        // the printed answers belong to the last commands before them
        const answers = printedAnswers(block.text);
        const matched = pending.slice(-answers.length);
        answers.forEach((answer, i) => {
          const real = matched[i];
          expect(real.status, `${real.request.printed}\n${JSON.stringify(real.body)}`).toBe(answer.status);
          for (const [, key, printed] of answer.text.matchAll(/"([A-Za-z_]+)":"([0-9a-f]{8}-\.\.\.)"/g)) {
            if (placeholders.has(printed)) continue;
            const value = firstMember(real.body, key);
            expect(value, `the answer of ${real.request.printed} has ${key}`).toEqual(expect.any(String));
            placeholders.set(printed, value as string);
          }
        });
        for (const p of pending.slice(0, -answers.length)) expect(p.status, p.request.printed).toBeLessThan(300);
        pending = [];
      }
    }
    expect(vars.S).toBe('http://127.0.0.1:3000');
    expect(ran).toBeGreaterThanOrEqual(11);
    // the booking is there, tomorrow at 09:00 in the provider's zone, as the example says
    const [row] = await t.db.query<{ start_at: Date; state: string }>(
      `SELECT a.start_at, p.state FROM participations p JOIN appointments a ON a.id = p.appointment_id
         WHERE p.crm_id = 'acme'`,
    );
    expect(row.state).toBe('BOOKED');
    expect(DateTime.fromJSDate(row.start_at, { zone: 'Europe/Berlin' }).toFormat("yyyy-MM-dd'T'HH:mm")).toBe(
      `${vars.D}T09:00`,
    );
  });
});
