/** Booking questions (DESIGN 7.7) for tests: one of each type, and a booking that answers them. */
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from './bookingFixtures.js';

/** One question of every type; `persons` and `consent` are required. */
export const QUESTIONS = [
  {
    key: 'persons',
    type: 'select',
    required: true,
    label: { de: 'Wie viele Personen?', en: 'How many people?' },
    options: [
      { value: '1', label: { de: 'Eine Person', en: 'One person' } },
      { value: '2', label: { de: 'Zwei Personen', en: 'Two people' } },
    ],
  },
  { key: 'plate', type: 'text', label: { de: 'Kennzeichen', en: 'Licence plate' }, maxLength: 12 },
  { key: 'notes', type: 'textarea', label: { de: 'Anmerkungen', en: 'Notes' } },
  { key: 'consent', type: 'checkbox', required: true, label: { de: 'Ich stimme zu', en: 'I agree' } },
  { key: 'work_email', type: 'email', label: { de: 'Dienstliche E-Mail', en: 'Work email' } },
  { key: 'insurance_phone', type: 'phone', label: { de: 'Telefon der Versicherung', en: 'Insurer phone' } },
];

/** Answers that satisfy QUESTIONS. */
export const GOOD_ANSWERS = {
  persons: '2',
  plate: 'B-XY 123',
  notes: 'Zweiter Stock,\nbitte klingeln',
  consent: true,
  work_email: 'erika@work.example',
  insurance_phone: '+49 30 1234567',
};

/** What D5 shows for GOOD_ANSWERS: labels as the questions had them at booking time. */
export const STORED_ANSWERS = QUESTIONS.map((q) => ({
  key: q.key,
  label: q.label,
  value: (GOOD_ANSWERS as Record<string, unknown>)[q.key],
}));

/** A provider whose product asks QUESTIONS, with slots on 2026-06-02 from 09:00 (raster 30, capacity `capacity`). */
export async function setupQuestions(
  t: TestApp,
  options: { resource?: object; capacity?: number } = {},
): Promise<{ b: Booking; slots: ListedBookable[] }> {
  const b = await setupBooking(t, {
    product: { name: 'Besichtigung', questions: QUESTIONS },
    resource: { publicName: 'Wohnung 12', ...options.resource },
  });
  await createTimeslots(b, [
    { start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 30, defaultCapacity: options.capacity ?? 1 },
  ]);
  return { b, slots: flatten(await upcoming(t, b.resource.reference)) };
}

/** A3 for `slot` with `answers`; 201 expected; returns createdAppointment. */
export async function bookWithAnswers(
  t: TestApp,
  b: Booking,
  slot: ListedBookable,
  answers: object = GOOD_ANSWERS,
  who: object = consumer(),
  placeholderId?: string,
) {
  const res = await book(t, b.resource.reference, {
    ...bookBodyFor(slot, b.product.uuid, placeholderId, who),
    answers,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().createdAppointment as { appointment_uuid: string; cancelLink: string };
}

/** D5: every participation of the provider's appointments. */
export async function participationsOf(
  b: Booking,
): Promise<{ reference: string; state: string; answers: unknown[] }[]> {
  const res = await b.p.call('GET', `${b.base}/appointments`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { participations: { reference: string; state: string; answers: unknown[] }[] }[]).flatMap(
    (a) => a.participations,
  );
}
