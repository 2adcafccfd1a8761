import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import {
  compareBookables,
  computeBookables,
  type EngineAppointment,
  type EngineBookable,
  type EngineBusy,
  type EngineProduct,
  type EngineQuery,
  type EngineTimeslot,
} from '../../src/booking/slotEngine.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** 2026-06-01T00:00:00Z */
const T0 = Date.UTC(2026, 5, 1);

function ts(over: Partial<EngineTimeslot> = {}): EngineTimeslot {
  return {
    id: 'ts1',
    resourceId: 'r1',
    startMs: T0 + 8 * HOUR,
    endMs: T0 + 10 * HOUR,
    rasterMin: 30,
    defaultCapacity: 1,
    defaultAcceptBookings: true,
    state: 'BOOKABLE',
    ...over,
  };
}

function appt(over: Partial<EngineAppointment> = {}): EngineAppointment {
  return {
    id: 'a1',
    resourceId: 'r1',
    timeslotId: null,
    productId: 'p1',
    startMs: T0 + 8 * HOUR,
    endMs: T0 + 8 * HOUR + 30 * MIN,
    capacity: 1,
    acceptBookings: true,
    live: 0,
    state: 'ACTIVE',
    archived: false,
    ...over,
  };
}

function product(over: Partial<EngineProduct> = {}): EngineProduct {
  return { id: 'p1', leadMin: 0, followUpMin: 0, minDurationMin: null, ...over };
}

function q(over: Partial<EngineQuery> = {}): EngineQuery {
  return { nowMs: T0, untilMs: T0 + 30 * DAY, product: null, ...over };
}

/** Start offsets in minutes from T0, for compact assertions. */
function startsMin(items: EngineBookable[]): number[] {
  return items.map((b) => (b.startMs - T0) / MIN);
}
function spans(items: EngineBookable[]): Array<[number, number]> {
  return items.map((b) => [(b.startMs - T0) / MIN, (b.endMs - T0) / MIN]);
}
const bookables = (items: EngineBookable[]) => items.filter((b) => b.kind === 'models.Bookable');
const lots = (items: EngineBookable[]) => items.filter((b) => b.kind === 'models.LotAppointment');

describe('cutting timeslots by raster', () => {
  it('cuts a timeslot into raster units from its start', () => {
    const out = computeBookables([ts()], [], q());
    expect(spans(out)).toEqual([
      [480, 510],
      [510, 540],
      [540, 570],
      [570, 600],
    ]);
    expect(out[0]).toEqual({
      kind: 'models.Bookable',
      timeslotId: 'ts1',
      resourceId: 'r1',
      startMs: T0 + 8 * HOUR,
      endMs: T0 + 8 * HOUR + 30 * MIN,
      capacity: 1,
      capacityLeft: 1,
    });
  });

  it('drops a trailing partial unit', () => {
    const out = computeBookables([ts({ endMs: T0 + 9 * HOUR + 50 * MIN, rasterMin: 30 })], [], q());
    expect(spans(out)).toEqual([
      [480, 510],
      [510, 540],
      [540, 570],
    ]);
  });

  it('yields nothing for a timeslot shorter than one raster unit', () => {
    expect(computeBookables([ts({ endMs: T0 + 8 * HOUR + 20 * MIN })], [], q())).toEqual([]);
  });

  it('cuts from the timeslot start even when it is not on a round time', () => {
    const out = computeBookables(
      [ts({ startMs: T0 + 8 * HOUR + 7 * MIN, endMs: T0 + 9 * HOUR + 7 * MIN, rasterMin: 20 })],
      [],
      q(),
    );
    expect(startsMin(out)).toEqual([487, 507, 527]);
  });

  it('uses the default capacity of the timeslot as capacity and capacity left', () => {
    const out = computeBookables([ts({ defaultCapacity: 5 })], [], q());
    expect(out.every((b) => b.capacity === 5 && b.capacityLeft === 5)).toBe(true);
  });
});

describe('timeslots that offer nothing', () => {
  it('ignores CREATED timeslots', () => {
    expect(computeBookables([ts({ state: 'CREATED' })], [], q())).toEqual([]);
  });

  it('ignores timeslots that do not accept bookings', () => {
    expect(computeBookables([ts({ defaultAcceptBookings: false })], [], q())).toEqual([]);
  });

  it('ignores timeslots with a default capacity of zero', () => {
    expect(computeBookables([ts({ defaultCapacity: 0 })], [], q())).toEqual([]);
  });

  it('ignores timeslots with a non-positive raster or an end before the start', () => {
    expect(computeBookables([ts({ rasterMin: 0 }), ts({ id: 'ts2', endMs: T0 })], [], q())).toEqual([]);
  });
});

describe('time window', () => {
  it('drops slots that start at or before now', () => {
    const out = computeBookables([ts()], [], q({ nowMs: T0 + 8 * HOUR + 30 * MIN }));
    expect(startsMin(out)).toEqual([540, 570]);
  });

  it('drops a slot that has already begun', () => {
    const out = computeBookables([ts()], [], q({ nowMs: T0 + 8 * HOUR + 31 * MIN }));
    expect(startsMin(out)).toEqual([540, 570]);
  });

  it('drops slots that start at or after until', () => {
    const out = computeBookables([ts()], [], q({ untilMs: T0 + 9 * HOUR }));
    expect(startsMin(out)).toEqual([480, 510]);
  });

  it('lists appointments only with a start strictly between now and until', () => {
    const a = [
      appt({ id: 'past', startMs: T0, endMs: T0 + 30 * MIN }),
      appt({ id: 'now', startMs: T0 + HOUR, endMs: T0 + HOUR + 30 * MIN }),
      appt({ id: 'ok', startMs: T0 + 2 * HOUR, endMs: T0 + 2 * HOUR + 30 * MIN }),
      appt({ id: 'until', startMs: T0 + 3 * HOUR, endMs: T0 + 3 * HOUR + 30 * MIN }),
    ];
    const out = computeBookables([], a, q({ nowMs: T0 + HOUR, untilMs: T0 + 3 * HOUR }));
    expect(out.map((b) => (b.kind === 'models.LotAppointment' ? b.appointmentId : ''))).toEqual(['ok']);
  });
});

describe('minimum duration of the product', () => {
  it('spans ceil(minDuration / raster) consecutive units and starts at every unit boundary where they fit', () => {
    const out = computeBookables([ts()], [], q({ product: product({ minDurationMin: 45 }) }));
    expect(spans(out)).toEqual([
      [480, 540],
      [510, 570],
      [540, 600],
    ]);
  });

  it('keeps single units when the minimum duration does not exceed the raster', () => {
    const out = computeBookables([ts()], [], q({ product: product({ minDurationMin: 30 }) }));
    expect(spans(out)).toHaveLength(4);
    expect(out.every((b) => b.endMs - b.startMs === 30 * MIN)).toBe(true);
  });

  it('yields nothing when the timeslot is shorter than the minimum duration', () => {
    expect(computeBookables([ts()], [], q({ product: product({ minDurationMin: 150 }) }))).toEqual([]);
  });

  it('needs all spanned units to be free', () => {
    const out = computeBookables(
      [ts()],
      [appt({ startMs: T0 + 9 * HOUR, endMs: T0 + 9 * HOUR + 30 * MIN, acceptBookings: false })],
      q({ product: product({ minDurationMin: 60 }) }),
    );
    expect(spans(bookables(out))).toEqual([[480, 540]]);
  });

  it('keeps single units for a minimum duration of zero, a negative one or none', () => {
    for (const minDurationMin of [0, -30, null]) {
      const out = computeBookables([ts()], [], q({ product: product({ minDurationMin }) }));
      expect(spans(out), String(minDurationMin)).toEqual([
        [480, 510],
        [510, 540],
        [540, 570],
        [570, 600],
      ]);
    }
  });

  it('ignores the minimum duration without a product in the query', () => {
    const out = computeBookables([ts()], [], q());
    expect(out).toHaveLength(4);
  });
});

describe('appointments block overlapping slots', () => {
  it('blocks a slot overlapped by an ACTIVE appointment whatever its capacity', () => {
    const a = appt({
      startMs: T0 + 8 * HOUR + 40 * MIN,
      endMs: T0 + 8 * HOUR + 50 * MIN,
      capacity: 0,
      acceptBookings: false,
    });
    const out = computeBookables([ts()], [a], q());
    expect(startsMin(out)).toEqual([480, 540, 570]);
  });

  it('does not list a Bookable on the range of an existing appointment, only the LotAppointment', () => {
    const a = appt({ startMs: T0 + 8 * HOUR, endMs: T0 + 8 * HOUR + 30 * MIN, capacity: 3, live: 1 });
    const out = computeBookables([ts()], [a], q());
    expect(out[0]).toMatchObject({ kind: 'models.LotAppointment', appointmentId: 'a1', capacity: 3, capacityLeft: 2 });
    expect(startsMin(bookables(out))).toEqual([510, 540, 570]);
  });

  it('lets a slot touch an appointment at either end', () => {
    const a = appt({ startMs: T0 + 8 * HOUR + 30 * MIN, endMs: T0 + 9 * HOUR, acceptBookings: false });
    const out = computeBookables([ts()], [a], q());
    expect(startsMin(out)).toEqual([480, 540, 570]);
  });

  it('ignores CANCELLED and archived appointments', () => {
    const a = [
      appt({ id: 'c', state: 'CANCELLED', startMs: T0 + 8 * HOUR, endMs: T0 + 10 * HOUR }),
      appt({ id: 'x', archived: true, startMs: T0 + 8 * HOUR, endMs: T0 + 10 * HOUR }),
    ];
    const out = computeBookables([ts()], a, q());
    expect(out).toHaveLength(4);
    expect(lots(out)).toEqual([]);
  });

  it('only blocks slots of the same resource', () => {
    const a = appt({ resourceId: 'r2', startMs: T0 + 8 * HOUR, endMs: T0 + 10 * HOUR, acceptBookings: false });
    expect(computeBookables([ts()], [a], q())).toHaveLength(4);
  });

  it('handles appointments that overlap each other, as a long one followed by short ones', () => {
    const a = [
      appt({ id: 'long', startMs: T0 + 7 * HOUR, endMs: T0 + 9 * HOUR, acceptBookings: false }),
      appt({ id: 'short', startMs: T0 + 7 * HOUR + 10 * MIN, endMs: T0 + 7 * HOUR + 20 * MIN, acceptBookings: false }),
    ];
    const out = computeBookables([ts()], a, q());
    expect(startsMin(out)).toEqual([540, 570]);
  });
});

describe('lead and follow-up buffers of the product', () => {
  const blocker = appt({ startMs: T0 + 9 * HOUR, endMs: T0 + 9 * HOUR + 30 * MIN, acceptBookings: false });

  it('blocks slots whose lead time overlaps an appointment', () => {
    const out = computeBookables([ts()], [blocker], q({ product: product({ leadMin: 15 }) }));
    // 09:30 needs 09:15 free (blocked); 08:00 and 08:30 end before 09:00.
    expect(startsMin(out)).toEqual([480, 510]);
  });

  it('blocks slots whose follow-up time overlaps an appointment', () => {
    const out = computeBookables([ts()], [blocker], q({ product: product({ followUpMin: 15 }) }));
    // 08:30-09:00 plus 15 min reaches 09:15 (blocked).
    expect(startsMin(out)).toEqual([480, 570]);
  });

  it('lets a follow-up buffer end exactly where an appointment starts', () => {
    const out = computeBookables([ts()], [blocker], q({ product: product({ followUpMin: 30 }) }));
    // 08:00-08:30 + 30 min = 09:00 touches the 09:00 appointment.
    expect(startsMin(out)).toEqual([480, 570]);
  });

  it('lets a lead buffer begin exactly where an appointment ends', () => {
    const out = computeBookables([ts()], [blocker], q({ product: product({ leadMin: 30 }) }));
    // 10:00 would need 09:30; here 09:30 - 30 min = 09:00 overlaps, so probe with a later slot.
    expect(startsMin(out)).toEqual([480, 510]);
    const later = computeBookables(
      [ts({ endMs: T0 + 11 * HOUR })],
      [blocker],
      q({ product: product({ leadMin: 30 }) }),
    );
    expect(startsMin(later)).toEqual([480, 510, 600, 630]);
  });

  it('allows buffers outside the timeslot when nothing is there', () => {
    const out = computeBookables([ts()], [], q({ product: product({ leadMin: 120, followUpMin: 120 }) }));
    expect(out).toHaveLength(4);
  });

  it('counts appointments outside the timeslot against the buffers', () => {
    const before = appt({ startMs: T0 + 7 * HOUR, endMs: T0 + 7 * HOUR + 50 * MIN, acceptBookings: false });
    const out = computeBookables([ts()], [before], q({ product: product({ leadMin: 30 }) }));
    expect(startsMin(bookables(out))).toEqual([510, 540, 570]);
  });

  it('applies no buffers without a product', () => {
    const out = computeBookables([ts()], [blocker], q());
    expect(startsMin(out)).toEqual([480, 510, 570]);
  });
});

describe('existing appointments as LotAppointment', () => {
  it('lists an ACTIVE accepting appointment with capacity left', () => {
    const a = appt({ id: 'g', timeslotId: 'ts9', productId: 'p1', capacity: 4, live: 3 });
    const out = computeBookables([], [a], q());
    expect(out).toEqual([
      {
        kind: 'models.LotAppointment',
        appointmentId: 'g',
        timeslotId: 'ts9',
        productId: 'p1',
        resourceId: 'r1',
        startMs: a.startMs,
        endMs: a.endMs,
        capacity: 4,
        capacityLeft: 1,
      },
    ]);
  });

  it('never lists an appointment whose capacity left is zero or less', () => {
    const a = [
      appt({ id: 'full', capacity: 2, live: 2 }),
      appt({ id: 'over', capacity: 2, live: 3, startMs: T0 + 9 * HOUR, endMs: T0 + 10 * HOUR }),
      appt({ id: 'zero', capacity: 0, live: 0, startMs: T0 + 11 * HOUR, endMs: T0 + 12 * HOUR }),
    ];
    expect(computeBookables([], a, q())).toEqual([]);
  });

  it('does not list appointments that do not accept bookings, are CANCELLED or archived', () => {
    const a = [
      appt({ id: 'private', acceptBookings: false }),
      appt({ id: 'cancelled', state: 'CANCELLED' }),
      appt({ id: 'archived', archived: true }),
    ];
    expect(computeBookables([], a, q())).toEqual([]);
  });

  it('keeps only appointments of the queried product', () => {
    const a = [
      appt({ id: 'mine', productId: 'p1' }),
      appt({ id: 'other', productId: 'p2', startMs: T0 + 9 * HOUR, endMs: T0 + 10 * HOUR }),
      appt({ id: 'none', productId: null, startMs: T0 + 11 * HOUR, endMs: T0 + 12 * HOUR }),
    ];
    const ids = (items: EngineBookable[]) =>
      items.map((b) => (b.kind === 'models.LotAppointment' ? b.appointmentId : ''));
    expect(ids(computeBookables([], a, q({ product: product({ id: 'p1' }) })))).toEqual(['mine']);
    expect(ids(computeBookables([], a, q()))).toEqual(['mine', 'other', 'none']);
  });

  it('lists an appointment once even if it is passed twice', () => {
    expect(computeBookables([], [appt(), appt()], q())).toHaveLength(1);
  });
});

describe('overlapping timeslots of one resource', () => {
  it('computes candidates of each timeslot, with different rasters', () => {
    const a = ts({ id: 'a', rasterMin: 30 });
    const b = ts({ id: 'b', rasterMin: 45, startMs: T0 + 8 * HOUR, endMs: T0 + 9 * HOUR + 30 * MIN });
    const out = computeBookables([a, b], [], q());
    expect(spans(out)).toEqual([
      [480, 510],
      [480, 525],
      [510, 540],
      [525, 570],
      [540, 570],
      [570, 600],
    ]);
    expect(out.map((x) => (x.kind === 'models.Bookable' ? x.timeslotId : ''))).toEqual(['a', 'b', 'a', 'b', 'a', 'a']);
  });

  it('lists identical candidates once, from the timeslot with the smallest id, whatever the input order', () => {
    const a = ts({ id: 'ts-b', defaultCapacity: 2 });
    const b = ts({ id: 'ts-a', startMs: T0 + 9 * HOUR, endMs: T0 + 11 * HOUR, defaultCapacity: 3 });
    for (const input of [
      [a, b],
      [b, a],
    ]) {
      const out = computeBookables(input, [], q());
      expect(spans(out)).toEqual([
        [480, 510],
        [510, 540],
        [540, 570],
        [570, 600],
        [600, 630],
        [630, 660],
      ]);
      const ids = out.map((x) => (x.kind === 'models.Bookable' ? x.timeslotId : ''));
      expect(ids).toEqual(['ts-b', 'ts-b', 'ts-a', 'ts-a', 'ts-a', 'ts-a']);
    }
  });

  it('lists the same time on different resources separately', () => {
    const out = computeBookables([ts({ id: 'x' }), ts({ id: 'y', resourceId: 'r0' })], [], q());
    expect(out).toHaveLength(8);
    expect(out.slice(0, 2).map((b) => b.resourceId)).toEqual(['r0', 'r1']);
  });
});

describe('ordering', () => {
  it('sorts by start, then resource, then end', () => {
    const items = computeBookables(
      [
        ts({ id: 't1', resourceId: 'r2', rasterMin: 60 }),
        ts({ id: 't2', resourceId: 'r1', rasterMin: 60 }),
        ts({ id: 't3', resourceId: 'r1', rasterMin: 30 }),
      ],
      [appt({ id: 'g', resourceId: 'r3', startMs: T0 + 8 * HOUR, endMs: T0 + 8 * HOUR + 15 * MIN })],
      q(),
    );
    const key = items.map((b) => `${(b.startMs - T0) / MIN}/${b.resourceId}/${(b.endMs - T0) / MIN}`);
    expect(key.slice(0, 4)).toEqual(['480/r1/510', '480/r1/540', '480/r2/540', '480/r3/495']);
  });
});

describe('daylight saving time', () => {
  const zone = 'Europe/Berlin';

  it('cuts 30-minute units exactly 30 real minutes apart across the spring-forward gap', () => {
    const start = DateTime.fromISO('2026-03-29T00:00', { zone });
    const end = DateTime.fromISO('2026-03-29T06:00', { zone });
    expect(end.toMillis() - start.toMillis()).toBe(5 * HOUR);
    const out = computeBookables(
      [ts({ startMs: start.toMillis(), endMs: end.toMillis(), rasterMin: 30 })],
      [],
      q({ nowMs: start.toMillis() - DAY, untilMs: end.toMillis() + DAY }),
    );
    expect(out).toHaveLength(10);
    for (let i = 0; i < out.length; i++) {
      expect(out[i].startMs).toBe(start.toMillis() + i * 30 * MIN);
      expect(out[i].endMs - out[i].startMs).toBe(30 * MIN);
    }
    const wall = out.map((b) => DateTime.fromMillis(b.startMs, { zone }).toFormat('HH:mm'));
    expect(wall).toEqual(['00:00', '00:30', '01:00', '01:30', '03:00', '03:30', '04:00', '04:30', '05:00', '05:30']);
  });

  it('cuts 30-minute units exactly 30 real minutes apart across the fall-back repeat', () => {
    const start = DateTime.fromISO('2026-10-25T00:00', { zone });
    const end = DateTime.fromISO('2026-10-25T06:00', { zone });
    expect(end.toMillis() - start.toMillis()).toBe(7 * HOUR);
    const out = computeBookables(
      [ts({ startMs: start.toMillis(), endMs: end.toMillis(), rasterMin: 30 })],
      [],
      q({ nowMs: start.toMillis() - DAY, untilMs: end.toMillis() + DAY }),
    );
    expect(out).toHaveLength(14);
    for (let i = 0; i < out.length; i++) {
      expect(out[i].startMs).toBe(start.toMillis() + i * 30 * MIN);
    }
    const wall = out.map((b) => DateTime.fromMillis(b.startMs, { zone }).toFormat('HH:mm'));
    expect(wall.slice(3, 9)).toEqual(['01:30', '02:00', '02:30', '02:00', '02:30', '03:00']);
  });
});

/** Minutes from T0 to epoch ms. */
const at = (min: number) => T0 + min * MIN;
function busyAt(fromMin: number, toMin: number, resourceId = 'r1'): EngineBusy {
  return { resourceId, startMs: at(fromMin), endMs: at(toMin) };
}

describe('busy times (closures, subscribed calendar events)', () => {
  // ts(): r1, 08:00-10:00 (480-600), raster 30
  it('blocks the candidates a busy time overlaps and is never listed itself', () => {
    const out = computeBookables([ts()], [], q(), [busyAt(520, 530)]);
    expect(startsMin(out)).toEqual([480, 540, 570]);
    expect(out.every((b) => b.kind === 'models.Bookable')).toBe(true);
  });

  it('lets a candidate touch a busy time at either end', () => {
    const out = computeBookables([ts()], [], q(), [busyAt(510, 540)]);
    expect(startsMin(out)).toEqual([480, 540, 570]);
  });

  it('blocks only candidates of the busy resource', () => {
    const out = computeBookables([ts(), ts({ id: 'ts2', resourceId: 'r2' })], [], q(), [busyAt(480, 600, 'r2')]);
    expect(out.map((b) => `${b.resourceId}@${(b.startMs - T0) / MIN}`)).toEqual([
      'r1@480',
      'r1@510',
      'r1@540',
      'r1@570',
    ]);
  });

  it('blocks with several busy times given in any order, overlapping each other or not', () => {
    const expected = [510, 570];
    const list = [busyAt(540, 560), busyAt(470, 500), busyAt(475, 485)];
    for (const busy of [list, [...list].reverse()]) {
      expect(startsMin(computeBookables([ts()], [], q(), busy))).toEqual(expected);
    }
    // a long busy time followed by a short one inside it still blocks up to the long one's end
    const nested = [busyAt(470, 545), busyAt(480, 490)];
    expect(startsMin(computeBookables([ts()], [], q(), nested))).toEqual([570]);
    expect(startsMin(computeBookables([ts()], [], q(), [...nested].reverse()))).toEqual([570]);
  });

  it("does not reorder or change the caller's busy list", () => {
    const busy = [busyAt(570, 600), busyAt(480, 510)];
    const copy = structuredClone(busy);
    computeBookables([ts()], [appt({ startMs: at(540), endMs: at(550), acceptBookings: false })], q(), busy);
    expect(busy).toEqual(copy);
  });

  it('blocks together with the appointments of the same resource, whichever comes first', () => {
    const early = appt({ id: 'early', startMs: at(480), endMs: at(500), acceptBookings: false });
    const late = appt({ id: 'late', startMs: at(570), endMs: at(590), acceptBookings: false });
    // appointment before the busy time, and after it
    expect(startsMin(computeBookables([ts()], [early], q(), [busyAt(540, 560)]))).toEqual([510, 570]);
    expect(startsMin(computeBookables([ts()], [late], q(), [busyAt(480, 500)]))).toEqual([510, 540]);
    // the busy time of another resource neither blocks nor hides r1's appointments
    expect(startsMin(computeBookables([ts()], [late], q(), [busyAt(400, 700, 'r2')]))).toEqual([480, 510, 540]);
  });

  it('widens candidates by the product buffers against busy times', () => {
    const busy = [busyAt(540, 570)];
    expect(startsMin(computeBookables([ts()], [], q({ product: product({ leadMin: 15 }) }), busy))).toEqual([480, 510]);
    expect(startsMin(computeBookables([ts()], [], q({ product: product({ followUpMin: 15 }) }), busy))).toEqual([
      480, 570,
    ]);
    expect(
      startsMin(computeBookables([ts()], [], q({ product: product({ followUpMin: 30, leadMin: 0 }) }), busy)),
    ).toEqual([480, 570]);
  });

  it('blocks candidates spanning several units when any unit meets a busy time', () => {
    const out = computeBookables([ts()], [], q({ product: product({ minDurationMin: 60 }) }), [busyAt(545, 550)]);
    expect(spans(out)).toEqual([[480, 540]]);
  });

  it('hides a joinable appointment whose range meets a busy time, and keeps one that touches it', () => {
    const a = appt({ id: 'g', startMs: at(540), endMs: at(570), capacity: 3, live: 1 });
    expect(lots(computeBookables([], [a], q(), [busyAt(560, 565)]))).toEqual([]);
    expect(lots(computeBookables([], [a], q(), [busyAt(530, 541)]))).toEqual([]);
    expect(lots(computeBookables([], [a], q(), [busyAt(500, 600)]))).toEqual([]);
    const touching = computeBookables([], [a], q(), [busyAt(510, 540), busyAt(570, 600)]);
    expect(touching).toEqual([
      expect.objectContaining({ kind: 'models.LotAppointment', appointmentId: 'g', capacityLeft: 2 }),
    ]);
    expect(lots(computeBookables([], [a], q(), [busyAt(540, 570, 'r2')]))).toHaveLength(1);
  });

  it("compares a joinable appointment's buffered range with busy times", () => {
    const a = appt({
      id: 'g',
      startMs: at(540),
      endMs: at(570),
      blockedFromMs: at(525),
      blockedUntilMs: at(585),
      capacity: 2,
    });
    expect(lots(computeBookables([], [a], q(), [busyAt(580, 590)]))).toEqual([]);
    expect(lots(computeBookables([], [a], q(), [busyAt(520, 530)]))).toEqual([]);
    expect(lots(computeBookables([], [a], q(), [busyAt(585, 600), busyAt(500, 525)]))).toHaveLength(1);
  });
});

describe('blocked range of an appointment', () => {
  it('blocks candidates over the buffers the appointment was booked with', () => {
    const a = appt({
      startMs: at(520),
      endMs: at(530),
      blockedFromMs: at(505),
      blockedUntilMs: at(545),
      acceptBookings: false,
    });
    expect(startsMin(computeBookables([ts()], [a], q()))).toEqual([570]);
  });

  it('lets candidates touch the blocked range', () => {
    const a = appt({
      startMs: at(520),
      endMs: at(530),
      blockedFromMs: at(510),
      blockedUntilMs: at(540),
      acceptBookings: false,
    });
    expect(startsMin(computeBookables([ts()], [a], q()))).toEqual([480, 540, 570]);
  });

  it('orders appointments by blocked start, not by start', () => {
    // a comes first by start (09:35), b's blocked range comes first (08:05-08:20, its start is 08:10)
    const a = appt({ id: 'a', startMs: at(575), endMs: at(580), acceptBookings: false });
    const b = appt({
      id: 'b',
      startMs: at(490),
      endMs: at(495),
      blockedFromMs: at(485),
      blockedUntilMs: at(500),
      acceptBookings: false,
    });
    expect(startsMin(computeBookables([ts()], [a, b], q()))).toEqual([510, 540]);
    expect(startsMin(computeBookables([ts()], [b, a], q()))).toEqual([510, 540]);
  });
});

describe('edge cases of the candidate walk', () => {
  it("lets a later candidate's end touch the next appointment after an earlier one was blocked", () => {
    const a = [
      appt({ id: 'first', startMs: at(480), endMs: at(490), acceptBookings: false }),
      appt({ id: 'next', startMs: at(540), endMs: at(570), acceptBookings: false }),
    ];
    expect(startsMin(computeBookables([ts()], a, q()))).toEqual([510, 570]);
    // a 10-minute follow-up makes 08:30-09:00 reach into 'next'
    expect(startsMin(computeBookables([ts()], a, q({ product: product({ followUpMin: 10 }) })))).toEqual([570]);
    // raster 20, follow-up 20: 08:20-08:40 + 20 ends exactly at 09:00 (free); 08:40-09:00 + 20 does not
    const touching = computeBookables([ts({ rasterMin: 20 })], a, q({ product: product({ followUpMin: 20 }) }));
    expect(startsMin(touching)).toEqual([500, 580]);
  });

  it('treats negative or missing buffers as none', () => {
    const blocker = appt({ startMs: at(540), endMs: at(570), acceptBookings: false });
    const p = product({ leadMin: -30, followUpMin: -30 });
    expect(startsMin(computeBookables([ts()], [blocker], q({ product: p })))).toEqual([480, 510, 570]);
    const nan = product({ leadMin: Number.NaN, followUpMin: undefined as unknown as number });
    expect(startsMin(computeBookables([ts()], [blocker], q({ product: nan })))).toEqual([480, 510, 570]);
  });

  it('rounds a minimum duration that is not a multiple of the raster up to whole units', () => {
    const out = computeBookables([ts({ rasterMin: 20 })], [], q({ product: product({ minDurationMin: 50 }) }));
    expect(spans(out)).toEqual([
      [480, 540],
      [500, 560],
      [520, 580],
      [540, 600],
    ]);
  });

  it('lists only the last candidate of a timeslot when now has passed the others', () => {
    const out = computeBookables([ts()], [], q({ nowMs: at(569) }));
    expect(startsMin(out)).toEqual([570]);
    expect(computeBookables([ts()], [], q({ nowMs: at(570) }))).toEqual([]);
    expect(startsMin(computeBookables([ts()], [], q({ nowMs: at(479) })))).toEqual([480, 510, 540, 570]);
  });

  it('ignores timeslots with non-finite times or raster', () => {
    const bad = [
      ts({ id: 'a', endMs: Number.POSITIVE_INFINITY }),
      ts({ id: 'b', startMs: Number.NaN }),
      ts({ id: 'c', rasterMin: Number.POSITIVE_INFINITY }),
      ts({ id: 'd', rasterMin: Number.NaN }),
      ts({ id: 'e', rasterMin: -30 }),
    ];
    expect(computeBookables(bad, [], q())).toEqual([]);
  });

  it('keeps candidates of one resource that share an end but not a start', () => {
    const hour = ts({ id: 'a', rasterMin: 60, endMs: at(540) }); // 08:00-09:00
    const half = ts({ id: 'b', rasterMin: 30, startMs: at(510), endMs: at(540) }); // 08:30-09:00
    expect(spans(computeBookables([half, hour], [], q()))).toEqual([
      [480, 540],
      [510, 540],
    ]);
  });
});

describe('compareBookables', () => {
  const slot = (over: Partial<EngineBookable> = {}): EngineBookable =>
    ({
      kind: 'models.Bookable',
      timeslotId: 't1',
      resourceId: 'r1',
      startMs: at(480),
      endMs: at(510),
      capacity: 1,
      capacityLeft: 1,
      ...over,
    }) as EngineBookable;
  const lot = (over: Partial<EngineBookable> = {}): EngineBookable =>
    ({
      kind: 'models.LotAppointment',
      appointmentId: 'a1',
      timeslotId: null,
      productId: null,
      resourceId: 'r1',
      startMs: at(480),
      endMs: at(510),
      capacity: 2,
      capacityLeft: 1,
      ...over,
    }) as EngineBookable;

  it('orders by start, resource, end, then Bookable before LotAppointment, then id', () => {
    const sorted = [
      slot({ startMs: at(470), resourceId: 'r9' }),
      slot({ resourceId: 'r0', endMs: at(600) }),
      slot({ endMs: at(500) }),
      slot({ timeslotId: 't0' }),
      slot({ timeslotId: 't1' }),
      lot({ appointmentId: 'a0' }),
      lot({ appointmentId: 'a1' }),
      lot({ resourceId: 'r2', endMs: at(490) }),
    ];
    for (let i = 0; i < sorted.length; i++) {
      for (let j = 0; j < sorted.length; j++) {
        const c = compareBookables(sorted[i], sorted[j]);
        const expected = Math.sign(i - j);
        expect(Math.sign(c), `${i} vs ${j}`).toBe(expected);
      }
    }
  });
});
