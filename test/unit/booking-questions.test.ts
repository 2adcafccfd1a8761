/**
 * Booking questions' pure rules (DESIGN 7.7): the questions a
 * product stores, the answers A3 keeps, and how mails word them.
 */
import { describe, expect, it } from 'vitest';
import { checkAnswers } from '../../src/booking/answers.js';
import { answerLine } from '../../src/notifications/answers.js';
import type { AppointmentMailPayload } from '../../src/notifications/payloads.js';
import { renderMail } from '../../src/notifications/render.js';
import { checkQuestions, publicQuestions, type QuestionInput } from '../../src/offerings/questions.js';

const label = (de: string, en = de) => ({ de, en });
const questions = checkQuestions([
  {
    key: 'size',
    type: 'select',
    required: true,
    label: label('Größe', 'Size'),
    options: [{ value: 's', label: label('Klein', 'Small') }],
  },
  { key: 'plate', type: 'text', label: label('Kennzeichen', 'Plate') },
  { key: 'ok', type: 'checkbox', label: label('Einverstanden', 'Agreed') },
] as QuestionInput[]);

describe('checkQuestions', () => {
  it('fills in required and the longest answer, and keeps options only on a select', () => {
    expect(questions.map((q) => [q.key, q.required, q.maxLength, q.options?.length])).toEqual([
      ['size', true, undefined, 1],
      ['plate', false, 500, undefined],
      ['ok', false, undefined, undefined],
    ]);
    expect(checkQuestions(null)).toEqual([]);
  });

  it('refuses a key or an option value given twice, naming the field (what the schema cannot say)', () => {
    const twice = [
      { key: 'a', type: 'text', label: label('A') },
      { key: 'a', type: 'email', label: label('B') },
    ] as const;
    expect(() => checkQuestions([...twice])).toThrow('body.questions.1.key a is used by an earlier question');
    const options = [
      { value: 'x', label: label('X') },
      { value: 'x', label: label('Y') },
    ];
    expect(() => checkQuestions([{ key: 'a', type: 'select', label: label('A'), options }])).toThrow(
      'body.questions.0.options.1.value x is used by an earlier option',
    );
  });

  it('words the questions in one language for the public flow', () => {
    expect(publicQuestions(questions, 'en_GB')[0]).toEqual({
      key: 'size',
      type: 'select',
      required: true,
      label: 'Size',
      options: [{ value: 's', label: 'Small' }],
    });
    expect(publicQuestions(questions, 'fr')[0].label).toBe('Größe');
  });
});

describe('checkAnswers', () => {
  it('keeps the answers given, trimmed, in the questions order, with their labels; none: null', () => {
    expect(checkAnswers(questions, { ok: false, plate: '  B-1 ', size: 's' }, 'DE')).toEqual([
      { key: 'size', label: label('Größe', 'Size'), value: 's' },
      { key: 'plate', label: label('Kennzeichen', 'Plate'), value: 'B-1' },
      { key: 'ok', label: label('Einverstanden', 'Agreed'), value: false },
    ]);
    expect(checkAnswers(questions.slice(1), undefined, 'DE')).toBeNull();
  });

  it('names every key that breaks a rule in one message', () => {
    expect(() => checkAnswers(questions, { plate: 'x'.repeat(501), ok: 'yes', extra: 1 }, 'DE')).toThrow(
      'body.answers.extra is not a question of this product; body.answers.size is required; ' +
        'body.answers.plate must have at most 500 characters; body.answers.ok must be true or false',
    );
  });

  it('counts characters, not UTF-16 units', () => {
    const short = checkQuestions([{ key: 'a', type: 'text', label: label('A'), maxLength: 2 }]);
    expect(checkAnswers(short, { a: '😀😀' }, 'DE')).toHaveLength(1);
  });
});

describe('phone answers', () => {
  const phone = checkQuestions([{ key: 'tel', type: 'phone', label: label('Telefon', 'Phone') }]);

  it.each([
    ['(030) 1234-5678', 'DE'],
    ['(0)30 12345678', 'DE'],
    ['0049 151 2345678', 'DE'],
    ['+49 151 2345678', 'US'],
    ['(555) 010-9999', 'US'],
    ['0660 1234567', 'AT'],
  ])('accepts %s read for %s, kept as typed', (value, country) => {
    expect(checkAnswers(phone, { tel: value }, country)).toEqual([
      { key: 'tel', label: label('Telefon', 'Phone'), value },
    ]);
  });

  it.each(['123', 'call me', '+49 1', '0049'])('refuses %s with a 400 naming the key', (value) => {
    expect(() => checkAnswers(phone, { tel: value }, 'DE')).toThrow(/^body\.answers\.tel must be a phone number/);
  });
});

describe('answers in mails', () => {
  const answers = [
    { key: 'plate', label: label('Kennzeichen', 'Plate'), value: '<B-1>' },
    { key: 'ok', label: label('Einverstanden', 'Agreed'), value: true },
  ];
  const payload: AppointmentMailPayload = {
    kind: 'appointment',
    appointment: {
      uuid: 'a',
      reference: 'a@crm',
      start: '2026-06-12T10:00:00+02:00',
      end: '2026-06-12T11:00:00+02:00',
      timeZone: 'Europe/Berlin',
      productName: 'P',
      resourceName: 'R',
      address: null,
    },
    provider: { name: 'Acme', email: 'info@acme.example', phone: null },
    contact: { name: 'Olga', email: 'olga@acme.example', phone: null, mobile: null },
    participant: { name: 'Max', email: 'max@example.com', mobile: null },
    participation: { uuid: 'p', reference: 'p@crm', state: 'BOOKED' },
    message: null,
    cancelLink: null,
    answers,
    icsUid: 'u',
    sequence: 1,
  };
  const render = (locale: string) =>
    renderMail(
      { template: 'booking-notification', locale, recipient: 'olga@acme.example', payload },
      { mailFrom: 'x@y.z' },
    );

  it('are listed under a heading in German and English, in text and escaped HTML', () => {
    expect(render('de').text).toContain('Angaben zur Buchung:\n- Kennzeichen: <B-1>\n- Einverstanden: Ja');
    expect(render('en').text).toContain('Answers to the booking questions:\n- Plate: <B-1>\n- Agreed: Yes');
    expect(render('en').html).toContain(
      '<th align="left" valign="top" style="padding:4px 16px 4px 0;font-weight:600">Plate</th>' +
        '<td style="padding:4px 0">&lt;B-1&gt;</td>',
    );
    expect(render('de').text).not.toContain('Angaben zur Buchung:\n\n');
  });

  it('fall back to German and then the key when a label is missing', () => {
    expect(answerLine({ key: 'k', label: { de: 'D', en: '' }, value: false }, 'en')).toEqual(['D', 'No']);
    expect(answerLine({ key: 'k', label: { de: '', en: '' }, value: 'v' }, 'de')).toEqual(['k', 'v']);
  });
});
