/** The widget's state and its transitions (widget/src/state.js): pure, run in Node. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../widget/src/api.js';
import { TEXT } from '../../widget/src/i18n.js';
import {
  bookBody,
  bookLostSlot,
  bookingProcess,
  choosesProduct,
  fieldErrorsOf,
  groupDays,
  initialState,
  messageOf,
  pageDaysOf,
  placesText,
  reserveBody,
  reserved,
  reserveLostSlot,
  retryable,
  showDays,
  stepNumber,
  turnDayPage,
  validate,
} from '../../widget/src/state.js';

const t = TEXT.en;
const bookable = (start: string, extra: object = {}) => ({
  kind: 'models.Bookable',
  timeslot_uuid: 'ts-1',
  start,
  end: start.replace(/T(\d\d):00/, 'T$1:30'),
  ...extra,
});
const days = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    day: `2026-08-${String(i + 1).padStart(2, '0')}`,
    items: [bookable(`2026-08-${String(i + 1).padStart(2, '0')}T09:00:00+02:00`)],
  }));

describe('widget state: the day list', () => {
  it('groups A1 by day in order, times sorted, public_visible and broken items left out', () => {
    const grouped = groupDays({
      public_visible: true,
      '2026-08-02': [bookable('2026-08-02T10:00:00+02:00'), bookable('2026-08-02T09:00:00+02:00')],
      '2026-08-01': [bookable('2026-08-01T11:00:00+02:00'), null, { start: '' }],
      other: 'not a list',
    });
    expect(grouped.map((d) => d.day)).toEqual(['2026-08-01', '2026-08-02']);
    expect(grouped[1].items.map((b) => b.start)).toEqual(['2026-08-02T09:00:00+02:00', '2026-08-02T10:00:00+02:00']);
    expect(groupDays(null)).toEqual([]);
  });

  it('a fresh list keeps the day the consumer was on when it still has times; none is the empty step', () => {
    const s = initialState();
    showDays(s, days(10), '2026-08-09');
    expect(s).toMatchObject({ step: 'slots', dayIndex: 8, dayPage: 1 });
    showDays(s, days(3), '2026-08-09');
    expect(s).toMatchObject({ step: 'slots', dayIndex: 0, dayPage: 0 });
    showDays(s, [], '2026-08-01');
    expect(s.step).toBe('empty');
  });

  it('pages seven days at a time within bounds and keeps focus on a paging button that stays enabled', () => {
    const s = initialState();
    showDays(s, days(16), undefined);
    expect(pageDaysOf(s)).toHaveLength(7);
    expect(turnDayPage(s, 1)).toBe('days-next');
    expect(s).toMatchObject({ dayPage: 1, dayIndex: 7 });
    expect(turnDayPage(s, 1)).toBe('days-prev'); // last page: "later" is disabled now
    expect(s).toMatchObject({ dayPage: 2, dayIndex: 14 });
    expect(pageDaysOf(s)).toHaveLength(2);
    expect(turnDayPage(s, 1)).toBe('days-prev');
    expect(s.dayPage).toBe(2);
    turnDayPage(s, -1);
    expect(turnDayPage(s, -1)).toBe('days-next'); // first page: "earlier" is disabled now
    expect(s).toMatchObject({ dayPage: 0, dayIndex: 0 });
  });
});

describe('widget state: steps', () => {
  it('asks for a product only when several are offered and no prdRef is given; numbers the steps', () => {
    const s = initialState();
    s.products = [{ uuid: 'p1' }, { uuid: 'p2' }];
    expect(choosesProduct(s, undefined)).toBe(true);
    expect(choosesProduct(s, 'p1')).toBe(false);
    s.step = 'slots';
    expect(stepNumber(s, true)).toEqual({ n: 2, total: 3 });
    expect(stepNumber(s, false)).toEqual({ n: 1, total: 2 });
    s.step = 'done';
    expect(stepNumber(s, true)).toBeNull();
  });

  it('reads the booking process of the channel, IMMEDIATE by default', () => {
    const s = initialState();
    expect(bookingProcess(s)).toBe('IMMEDIATE');
    s.publicData = { channel: { bookingProcess: 'REQUESTED' } };
    expect(bookingProcess(s)).toBe('REQUESTED');
  });

  it('reserving moves to the details step with a hold from now, of the length A2 names or the default', () => {
    const s = initialState();
    s.fieldErrors = { email: 'old' };
    const b = bookable('2026-08-01T09:00:00+02:00');
    expect(reserved(s, b, { participation: { customer_uuid: 'c-1' } }, 1_000, 180)).toBe(180);
    expect(s).toMatchObject({
      step: 'details',
      slot: b,
      expired: false,
      fieldErrors: {},
      hold: { customerUuid: 'c-1', expiresAt: 181_000 },
    });
    expect(reserved(s, b, { participation: { customer_uuid: 'c-2', holdSeconds: 6 } }, 1_000, 180)).toBe(6);
    expect(s.hold).toEqual({ customerUuid: 'c-2', expiresAt: 7_000 });
  });
});

describe('widget state: what goes to the service', () => {
  it('A2 gets the timeslot or, for a group appointment, the appointment, with from/to in UTC', () => {
    const s = initialState();
    s.product = { uuid: 'p2' };
    expect(
      reserveBody(s, bookable('2026-08-01T09:00:00+02:00', { products: [{ uuid: 'p1' }, { uuid: 'p2' }] })),
    ).toEqual({
      timeslot_uuid: 'ts-1',
      product_uuid: 'p2',
      from: '2026-08-01T07:00:00.000Z',
      to: '2026-08-01T07:30:00.000Z',
    });
    const lot = bookable('2026-08-01T09:00:00+02:00', {
      kind: 'models.LotAppointment',
      appointment_uuid: 'ap-1',
      product_uuid: 'p1',
    });
    expect(reserveBody(s, lot)).toMatchObject({ appointment_uuid: 'ap-1', product_uuid: 'p1' });
    expect(reserveBody(s, lot)).not.toHaveProperty('timeslot_uuid');
  });

  it('A3 gets the slot, the hold as placeholder, the trimmed form, the language and the channel', () => {
    const s = initialState();
    reserved(
      s,
      bookable('2026-08-01T09:00:00+02:00', { product_uuid: 'p1' }),
      { participation: { customer_uuid: 'c-1' } },
      0,
      180,
    );
    s.form = { firstname: ' Anna ', lastname: 'Muster', email: ' anna@example.org ', mobile: ' ', message: '  ' };
    expect(bookBody(s, { lang: 'de', channelKey: 'RESOURCE_PUBLIC' })).toEqual({
      start: '2026-08-01T09:00:00+02:00',
      end: '2026-08-01T09:30:00+02:00',
      timeslot_uuid: 'ts-1',
      product_uuid: 'p1',
      placeholder_id: 'c-1',
      email: 'anna@example.org',
      firstname: 'Anna',
      lastname: 'Muster',
      locale: 'de',
      channelKey: 'RESOURCE_PUBLIC',
    });
  });

  it('checks the form as A3 would, field by field', () => {
    const empty = { firstname: '', lastname: ' ', email: '', mobile: '', message: '' };
    expect(validate(empty, t)).toEqual({ firstname: t.errRequired, lastname: t.errRequired, email: t.errRequired });
    const bad = { firstname: 'A', lastname: 'B', email: 'a@b', mobile: 'call me', message: 'x'.repeat(1025) };
    expect(validate(bad, t)).toEqual({ email: t.errEmail, mobile: t.errMobile, message: t.errMessage });
    expect(
      validate(
        { firstname: 'A', lastname: 'B', email: 'a@b.de', mobile: '+49 151 23456789', message: 'x'.repeat(1024) },
        t,
      ),
    ).toEqual({});
  });

  it("maps A3's 400 messages onto the fields they name", () => {
    const err = new ApiError(400, [
      { errorCode: 'VALIDATION', message: 'body.email must match format "email"; body.firstname is required' },
      { message: 'body.start is bad' },
    ]);
    expect(fieldErrorsOf(err, t)).toEqual({ email: t.errEmail, firstname: t.errRequired });
    expect(fieldErrorsOf(new ApiError(400, [{ message: 'body.start must be a date-time' }]), t)).toEqual({});
  });
});

describe('widget state: failures', () => {
  it('knows when the time is gone and when a retry may help', () => {
    expect(reserveLostSlot(new ApiError(412, [{ errorCode: '201' }]), 'slots')).toBe(true);
    expect(reserveLostSlot(new ApiError(409, [{ errorCode: 'CAPACITY_EXHAUSTED' }]), 'slots')).toBe(true);
    expect(reserveLostSlot(new ApiError(409, [{ errorCode: 'AppointmentAlreadyBookedException' }]), 'slots')).toBe(
      false,
    );
    expect(reserveLostSlot(new ApiError(404, []), 'details')).toBe(true);
    expect(reserveLostSlot(new ApiError(404, []), 'slots')).toBe(false);
    expect(bookLostSlot(new ApiError(412, []))).toBe(true);
    expect(bookLostSlot(new ApiError(409, [{ errorCode: 'TOO_LATE' }]))).toBe(true);
    expect(bookLostSlot(new ApiError(400, [{ errorCode: 'VALIDATION' }]))).toBe(false);
    expect(retryable(new ApiError(0, []))).toBe(true);
    expect(retryable(new ApiError(503, []))).toBe(true);
    expect(retryable(new ApiError(429, []))).toBe(false);
  });

  it('says what went wrong in words', () => {
    expect(messageOf(new ApiError(0, []), t)).toBe(t.networkError);
    expect(messageOf(new ApiError(429, []), t)).toBe(t.tooMany);
    expect(messageOf(new ApiError(404, []), t)).toBe(t.notFound);
    expect(messageOf(new ApiError(409, [{ errorCode: 'AppointmentAlreadyBookedException' }]), t)).toBe(t.alreadyBooked);
    expect(messageOf(new ApiError(409, [{ errorCode: 'CONSUMER_LIMIT' }]), t)).toBe(t.consumerLimit);
    expect(messageOf(new ApiError(500, []), t)).toBe(t.serverError);
  });

  it('shows places left only for group appointments', () => {
    expect(placesText({ capacity: 1, capacity_left: 1 }, t)).toBeNull();
    expect(placesText({ capacity: 5, capacity_left: 1 }, t)).toBe('1 place left');
    expect(placesText({ capacity: 5, capacity_left: 3 }, TEXT.de)).toBe('noch 3 Plätze frei');
  });
});
