/**
 * Booking questions' answers in the mails received over SMTP (DESIGN 7.7): the provider side's
 * request, notification, reschedule and cancellation mails and the consumer's confirmation carry
 * them; the consumer's other mails do not; the decision-link page shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consumer } from '../helpers/bookingFixtures.js';
import { moveBodyFor, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import { outboxOf } from '../helpers/mailFixtures.js';
import { bookWithAnswers, setupQuestions } from '../helpers/questionsFixtures.js';
import { SmtpSink, type ReceivedMail } from '../helpers/smtpSink.js';

let sink: SmtpSink;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  t = await startTestApp({ smtpUrl: sink.url, mailPollMs: 50, publicBaseUrl: 'https://book.example' }, undefined, {
    jobs: true,
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

async function mailTo(address: string, match: (m: ReceivedMail) => boolean, timeoutMs = 25_000): Promise<ReceivedMail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = sink.to(address).find(match);
    if (found) return found;
    if (Date.now() > until)
      throw new Error(
        `no matching mail to ${address}; got: ${sink
          .to(address)
          .map((m) => m.subject)
          .join(' | ')}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ANSWER_TEXT_DE = [
  'Angaben zur Buchung:',
  '- Wie viele Personen?: 2',
  '- Kennzeichen: B-XY 123',
  '- Anmerkungen: Zweiter Stock,\n  bitte klingeln',
  '- Ich stimme zu: Ja',
];
const ANSWER_TEXT_EN = [
  'Answers to the booking questions:',
  '- How many people?: 2',
  '- Licence plate: B-XY 123',
  '- I agree: Yes',
];

describe('answers in mails', () => {
  it("reach the provider's notification and the consumer's confirmation (de, en), no other consumer mail", async () => {
    const { b, slots } = await setupQuestions(t);
    const who = consumer({ locale: 'en' });
    const created = await bookWithAnswers(t, b, slots[0], undefined, who);
    const providerEmail = (await outboxOf(t, b.p.crmId)).find((m) => m.template === 'booking-notification')!.recipient;

    const notification = await mailTo(providerEmail, (m) => m.text!.includes('Angaben zur Buchung'));
    for (const line of ANSWER_TEXT_DE) expect(notification.text).toContain(line);
    expect(notification.html).toContain('Dienstliche E-Mail');
    expect(notification.html).toContain('erika@work.example');
    const confirmation = await mailTo(who.email, (m) => m.text!.includes('Answers to the booking questions'));
    for (const line of ANSWER_TEXT_EN) expect(confirmation.text).toContain(line);

    // moved: both sides are told, the provider with the answers
    const moved = await reschedule(t, tokenOf(created.cancelLink), moveBodyFor(slots[2]));
    expect(moved.statusCode, moved.body).toBe(200);
    const rescheduled = (await outboxOf(t, b.p.crmId)).filter((m) => m.template.startsWith('booking-rescheduled'));
    expect(rescheduled.map((m) => [m.template, Array.isArray(m.payload.answers)])).toEqual([
      ['booking-rescheduled', false],
      ['booking-rescheduled-notification', true],
    ]);

    // cancelled by link: the provider's notice carries them, the consumer's receipt does not
    const cancel = await t.app.inject({
      method: 'POST',
      url: new URL(created.cancelLink).pathname,
      payload: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(cancel.statusCode).toBe(200);
    const notice = await mailTo(providerEmail, (m) => m.subject.startsWith('Stornierung'));
    expect(notice.text).toContain('- Kennzeichen: B-XY 123');
    const receipt = await mailTo(who.email, (m) => m.subject.startsWith('Cancellation confirmed'));
    expect(receipt.text).not.toContain('B-XY 123');
  });

  it('reach the provider with the request, and the decision page shows them', async () => {
    const { b, slots } = await setupQuestions(t, {
      resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } },
    });
    await bookWithAnswers(t, b, slots[0]);
    const request = (await outboxOf(t, b.p.crmId)).find((m) => m.template === 'booking-request-to-confirm')!;
    const mail = await mailTo(request.recipient, (m) => m.text!.includes('Angaben zur Buchung'));
    for (const line of ANSWER_TEXT_DE) expect(mail.text).toContain(line);
    const page = await t.app.inject({ method: 'GET', url: new URL(String(request.payload.decisionLink)).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Wie viele Personen?</dt><dd>2</dd>');
    expect(page.body).toContain('<dt>Ich stimme zu</dt><dd>Ja</dd>');
    expect(page.body).toContain('Zweiter Stock,<br>bitte klingeln');
  });
});
