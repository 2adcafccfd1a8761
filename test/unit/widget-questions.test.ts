/**
 * The widget's booking questions, pure (widget/src/questions.js): which product asks, the form's checks, A3's body and
 * its 400s per field.
 */
import { describe, expect, it } from 'vitest';
import { TEXT } from '../../widget/src/i18n.js';
import { answerErrorsOf, answerRows, answersBody, questionsOf, validateAnswers } from '../../widget/src/questions.js';
import { bookBody, fieldErrorsOf, initialState } from '../../widget/src/state.js';

const t = TEXT.en;
const QS = [
  {
    key: 'persons',
    type: 'select',
    required: true,
    label: 'How many?',
    options: [
      { value: '1', label: 'One' },
      { value: '2', label: 'Two' },
    ],
  },
  { key: 'plate', type: 'text', required: false, label: 'Plate', maxLength: 5 },
  { key: 'ok', type: 'checkbox', required: true, label: 'I agree' },
  { key: 'mail', type: 'email', required: false, label: 'Work email', maxLength: 254 },
  { key: 'tel', type: 'phone', required: false, label: 'Phone', maxLength: 32 },
];

describe('questionsOf', () => {
  it("asks the reserved slot's product's questions, else the chosen product's, else none", () => {
    const s = initialState();
    expect(questionsOf(s)).toEqual([]);
    s.products = [
      { uuid: 'p1', questions: QS },
      { uuid: 'p2', questions: [] },
    ];
    s.product = s.products[0];
    expect(questionsOf(s)).toEqual(QS);
    s.slot = { product_uuid: 'p2', products: [{ uuid: 'p2' }] };
    expect(questionsOf(s)).toEqual([]);
  });
});

describe('validateAnswers', () => {
  it('marks each broken rule at its field, with the words for its type', () => {
    expect(validateAnswers(QS, {}, t)).toEqual({ q_persons: t.errChoose, q_ok: t.errCheckbox });
    expect(validateAnswers(QS, { persons: '1', ok: true, plate: 'ABCDEF', mail: 'nope', tel: 'call' }, t)).toEqual({
      q_plate: 'Please use at most 5 characters.',
      q_mail: t.errEmail,
      q_tel: t.errPhone,
    });
    expect(validateAnswers(QS, { persons: '2', ok: true, plate: ' AB ' }, t)).toEqual({});
  });
});

describe("A3's answers", () => {
  it('sends the given answers trimmed, a ticked checkbox as true, and none when nothing is given', () => {
    expect(answersBody(QS, { persons: '2', ok: true, plate: ' AB ', mail: '', unrelated: 'x' })).toEqual({
      persons: '2',
      ok: true,
      plate: 'AB',
    });
    expect(answersBody(QS, { ok: false })).toBeUndefined();
    const s = initialState();
    s.slot = { start: 'a', end: 'b', timeslot_uuid: 't', kind: 'models.Bookable' };
    expect(bookBody(s, { lang: 'en', channelKey: 'RESOURCE_PUBLIC' })).not.toHaveProperty('answers');
    expect(bookBody(s, { lang: 'en', channelKey: 'RESOURCE_PUBLIC', answers: { ok: true } }).answers).toEqual({
      ok: true,
    });
  });

  it("maps A3's 400 messages to the fields they name", () => {
    const errors = [
      {
        message:
          'body.answers.persons is required; body.answers.plate must have at most 5 characters; ' +
          'body.answers.other is not a question of this product',
      },
      { message: 'body.answers.mail must be an email address' },
    ];
    expect(answerErrorsOf(errors, QS, t)).toEqual({
      q_persons: t.errRequired,
      q_plate: t.errInvalid,
      q_mail: t.errEmail,
    });
    // an answer's "email address" is no fault of the consumer's own email field
    expect(fieldErrorsOf({ errors } as never, t)).toEqual({});
  });

  it('shows the given answers with option labels for the done step', () => {
    expect(answerRows(QS, { persons: '2', ok: true, plate: 'AB', mail: ' ' })).toEqual([
      ['How many?', 'Two'],
      ['Plate', 'AB'],
      ['I agree', true],
    ]);
  });
});
