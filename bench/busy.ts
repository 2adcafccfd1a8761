/**
 * BUSY: what busy times cost the cold A1 (issue 33: with 500 busy intervals on a resource, within
 * 20 % of the same listing without them). Two W1-shaped resources of one provider list the same
 * slots; one also has 500 closures at night. Taking turns, BUSY_ROUNDS times each, a change to the
 * resource's listing and then ONE A1 (Accept-Encoding: br, gzip), timed, in two kinds:
 * - after an appointment: one made and removed far ahead (D6, D7), as a booking changes a listing:
 *   A1 reads the changed appointments only;
 * - after a closure: one made and removed far ahead: a change that names no appointment, so A1
 *   reads everything again, the busy times included.
 */
import { client, Latencies } from './http.js';
import type { BusyData } from './seed.js';

export const BUSY_ROUNDS = 100;

type Change = 'appointment' | 'closure';

export async function busyRun(serverUrl: string, data: BusyData, kind: Change) {
  const send = client(serverUrl, 1);
  const { crmId, key, providerRef } = data.partner;
  const partner = { 'x-service-client-id': key };
  const base = `/crms/${crmId}/provider/${encodeURIComponent(providerRef)}`;
  const expect = async (status: number, r: Promise<{ status: number; body: string }>) => {
    const res = await r;
    if (res.status !== status) throw new Error(`${kind} change: ${res.status} ${res.body}`);
    return res.body;
  };
  let n = 0;
  const change = async (resourceRef: string) => {
    if (kind === 'closure') {
      const created = await expect(
        201,
        send('POST', `${base}/closures`, partner, {
          resourceReference: resourceRef,
          start: '2030-01-01T00:00',
          end: '2030-01-01T01:00',
        }),
      );
      await expect(204, send('DELETE', `${base}/closures/${JSON.parse(created).closure.id}`, partner));
    } else {
      const reference = `far-${n++}-${resourceRef}`;
      await expect(
        201,
        send('POST', `${base}/appointments`, partner, {
          reference,
          start: '2030-01-01T10:00',
          end: '2030-01-01T10:30',
          resourceReference: resourceRef,
          productReference: 'viewing@bench',
        }),
      );
      await expect(
        200,
        send('DELETE', `${base}/appointments/withoutNotification`, partner, { appointmentReference: reference }),
      );
    }
  };
  const sides = [
    { name: 'without busy times', ref: 'plain@bench', uuid: data.plainUuid, latencies: new Latencies(), bytes: 0 },
    {
      name: `with ${data.busyIntervals} busy times`,
      ref: 'busy@bench',
      uuid: data.busyUuid,
      latencies: new Latencies(),
      bytes: 0,
    },
  ];
  for (let i = 0; i < BUSY_ROUNDS; i++) {
    for (const side of i % 2 ? [...sides].reverse() : sides) {
      await change(side.ref);
      const r = await send('GET', `/resources/${side.uuid}/upcoming_bookables?prdRef=${data.productUuid}`, {
        'accept-encoding': 'br, gzip',
      });
      side.latencies.add(r.ms);
      if (r.status !== 200) side.latencies.failed++;
      side.bytes = r.body.length;
    }
  }
  return sides.map((s) => ({ name: s.name, bytes: s.bytes, ...s.latencies.summary() }));
}
