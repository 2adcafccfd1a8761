/**
 * Property (DESIGN 7.12): for two bookings whose consumers share or do not share an e-mail (in any
 * letter case) and a mobile (in any written form), every mail goes to its own booking's address, and
 * no page or mail of one person shows the other person's cancel link. Both bookings are mailed,
 * one of them is cancelled through its link, and each person asks for their "my bookings" link.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMail } from '../../src/notifications/render.js';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  publicCall,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { tokenOf } from '../helpers/lifecycleFixtures.js';
import { outboxOf } from '../helpers/mailFixtures.js';
import { seeded } from '../helpers/property.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    bookingRateLimitPerMinute: 100_000,
    maxHoldsPerIp: 10_000,
    publicBaseUrl: 'https://book.example',
  });
});
afterAll(() => t.close());

/** Ways people write one German mobile number (0170 555 01 2x). */
const WRITTEN = [
  (n: string) => `+49 170 ${n}`,
  (n: string) => `+49170${n}`,
  (n: string) => `0170 ${n}`,
  (n: string) => `0049 170 ${n}`,
  (n: string) => `(0170) ${n.slice(0, 3)}-${n.slice(3)}`,
  (n: string) => `+49 (0)170 ${n}`,
];

/** Each letter upper or lower case as the mask says. */
const cased = (text: string, mask: boolean[]) =>
  [...text].map((ch, i) => (mask[i % mask.length] ? ch.toUpperCase() : ch)).join('');

const personArb = fc.record({
  number: fc.constantFrom('5550123', '5550124'),
  form: fc.nat(WRITTEN.length - 1),
  withMobile: fc.boolean(),
  mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});
const pairArb = fc.record({ a: personArb, b: personArb, sameEmail: fc.boolean(), cancel: fc.constantFrom(0, 1) });

const lower = (s: string) => s.toLowerCase();

describe('consumers sharing an e-mail or a phone', () => {
  it("get every mail at their own address and never see the other one's cancel link", async () => {
    await fc.assert(
      fc.asyncProperty(pairArb, async ({ a, b: other, sameEmail, cancel }) => {
        const setup = await setupBooking(t);
        await createTimeslots(setup, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
        const id = uniqueId('p');
        const base = [`first.${id}@home.example`, sameEmail ? `first.${id}@home.example` : `second.${id}@home.example`];
        const people = [a, other].map((p, i) => ({
          email: cased(base[i], p.mask),
          firstname: i === 0 ? 'Alpha' : 'Beta',
          lastname: 'Home',
          ...(p.withMobile ? { mobile: WRITTEN[p.form](p.number) } : {}),
        }));
        const links: string[] = [];
        for (const who of people) {
          const [slot] = flatten(await upcoming(t, setup.resource.reference));
          const res = await book(t, setup.resource.reference, bookBodyFor(slot, setup.product.uuid, undefined, who));
          expect(res.statusCode, res.body).toBe(201);
          links.push(res.json().createdAppointment.cancelLink);
        }
        expect((await publicCall(t, 'POST', new URL(links[cancel]).pathname)).statusCode).toBe(200);
        for (const who of people) {
          expect(
            (
              await publicCall(
                t,
                'POST',
                '/rest/1/my-bookings',
                { email: who.email },
                { ref: setup.resource.reference },
              )
            ).statusCode,
          ).toBe(202);
        }

        const samePerson = lower(people[0].email) === lower(people[1].email);
        const ownerOf = (address: string) => people.findIndex((p) => lower(p.email) === lower(address));
        const pages: { owner: number; text: string }[] = [];
        for (const mail of await outboxOf(t, setup.p.crmId)) {
          if (['booking-notification', 'self-cancel-notification'].includes(mail.template)) continue;
          const owner = ownerOf(mail.recipient);
          expect(owner, `${mail.template} to ${mail.recipient}`).toBeGreaterThanOrEqual(0);
          const participation = (mail.payload.participation as { uuid: string } | undefined)?.uuid;
          if (participation) {
            // a mail about a booking goes to the address typed for that booking
            const booking = links.findIndex((l) => tokenOf(l).startsWith(participation));
            expect(lower(mail.recipient)).toBe(lower(people[booking].email));
          }
          const { text, html } = renderMail(mail, { mailFrom: t.config.mailFrom });
          pages.push({ owner, text: text + html });
          const link = /https:\/\/book\.example\/my-bookings\/(\S+)/.exec(text)?.[1];
          if (link) {
            const list = await publicCall(t, 'GET', `/my-bookings/${link}`);
            expect(list.statusCode).toBe(200);
            pages.push({ owner, text: list.body });
          }
        }
        for (const { owner, text } of pages) {
          if (samePerson) continue;
          expect(text).not.toContain(tokenOf(links[1 - owner]));
        }
      }),
      seeded('consumers sharing an e-mail or a phone', { numRuns: 20 }),
    );
  }, 240_000);
});
