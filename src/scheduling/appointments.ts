/** Appointments of a provider: D5 list and D6 create (a single appointment or a series). */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { conflict, invalid } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import type { Queryable } from '../storage/db.js';
import { normalizeAddress, type AddressInput } from './address.js';
import { insertAppointment, type AppointmentRow } from './capacity.js';
import { findOrCreateCustomer } from './customers.js';
import { takePlace } from './places.js';
import * as repo from './repo.js';
import { expandSeries, type SeriesItem } from './series.js';
import { assertEndAfterStart, parseInstant, parseLocalDate, parseTimeOfDay } from './time.js';
import type { ParticipationState } from './transitions.js';
import { loadAppointmentViews, type AppointmentView } from './views.js';
import { recordAppointmentEvent } from './events.js';

export interface InlineParticipation {
  reference?: string;
  name: string;
  email: string;
  mobile?: string;
  note?: string;
  state: ParticipationState;
}

export interface SeriesData {
  from: string;
  to: string;
  raster: number;
  weekdays?: (string | number)[];
}

export interface AppointmentInput {
  reference?: string;
  start?: string;
  end?: string;
  from?: string;
  to?: string;
  series_data?: SeriesData;
  capacity?: number;
  acceptBookings?: boolean;
  resourceReference: string;
  productReference: string;
  productName?: string;
  contactReference?: string;
  address?: AddressInput | string;
  price?: { value: number; currency: 'EUR' | 'CHF' };
  description?: string;
  notes?: string;
  participations?: InlineParticipation[];
}

interface Planned extends SeriesItem {
  reference: string;
}

/**
 * The 400 checks that need no lookup and that the schema cannot state (http/schedulingSchemas.ts
 * holds which members each form requires): a single appointment ends after it starts and names each
 * inline participation once.
 */
function checkShape(input: AppointmentInput): void {
  if (input.series_data) return;
  assertEndAfterStart(input.start!, input.end!, 'body.start', 'body.end');
  const seen = new Set<string>();
  input.participations?.forEach((p, i) => {
    const ref = p.reference!;
    if (seen.has(ref)) throw invalid(`body.participations[${i}].reference ${ref} is given twice`);
    seen.add(ref);
  });
}

function plan(input: AppointmentInput, zone: string): { seriesId: string | null; items: Planned[] } {
  const series = input.series_data;
  if (!series) {
    const start = parseInstant(input.start!, zone, 'body.start');
    const end = parseInstant(input.end!, zone, 'body.end');
    if (end.getTime() <= start.getTime()) throw invalid('body.end must be after body.start');
    return { seriesId: null, items: [{ reference: input.reference!, start, end }] };
  }
  const seriesId = randomUUID();
  const items = expandSeries({
    zone,
    firstDay: parseLocalDate(series.from, zone, 'body.series_data.from'),
    lastDay: parseLocalDate(series.to, zone, 'body.series_data.to'),
    windowFrom: parseTimeOfDay(input.from!, zone, 'body.from'),
    windowTo: parseTimeOfDay(input.to!, zone, 'body.to'),
    weekdays: series.weekdays?.map(Number) ?? null,
    rasterMin: series.raster,
  });
  return { seriesId, items: items.map((item, i) => ({ ...item, reference: `${seriesId}-${i + 1}` })) };
}

async function addInlineParticipations(
  tx: Queryable,
  deps: Deps,
  provider: { id: string; crm_id: string },
  appointment: AppointmentRow,
  list: InlineParticipation[],
  ignoreCapacity: boolean,
): Promise<void> {
  for (const [i, p] of list.entries()) {
    const customer = await findOrCreateCustomer(
      tx,
      provider,
      { name: p.name, email: p.email, mobile: p.mobile },
      appointment.resource_id,
    );
    await takePlace(tx, deps, appointment, {
      // In a series each appointment gets its own participation; references follow the appointment's.
      reference: appointment.series_id ? `${appointment.reference}-p${i + 1}` : p.reference!,
      customerId: customer.id,
      state: p.state,
      note: p.note,
      ignoreCapacity,
    });
  }
}

/**
 * D6: all or nothing. A series (series_data) is cut as docs/api.md (Booking rules) says and its appointments share one
 * generated seriesId with references `${seriesId}-${n}`. Any overlap with a live appointment of the
 * resource (the exclusion constraint decides; no resource lock) fails the whole request with 409
 * naming the clash.
 * Inline participations take places like D9 (capacity enforced unless ignoreCapacity) and send no mail.
 */
export async function createAppointments(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: AppointmentInput,
  options: { ignoreCapacity?: boolean } = {},
): Promise<AppointmentView[]> {
  checkShape(input);
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const zone = provider.time_zone;
    const { seriesId, items } = plan(input, zone);
    const resource = await repo.requireResource(tx, provider.id, input.resourceReference);
    const product = await repo.requireProduct(tx, provider.id, input.productReference);
    const contact =
      input.contactReference === undefined
        ? null
        : await repo.requireUser(tx, crmId, input.contactReference, 'contactReference');
    if (resource.archived) throw conflict(`resource ${resource.reference} is archived`);

    const ids: string[] = [];
    for (const item of items) {
      const row = await insertAppointment(tx, {
        crmId,
        providerId: provider.id,
        resourceId: resource.id,
        productId: product.id,
        reference: item.reference,
        seriesId,
        start: item.start,
        end: item.end,
        capacity: input.capacity ?? 0,
        acceptBookings: input.acceptBookings ?? false,
        productName: input.productName ?? null,
        contactUserId: contact?.id ?? null,
        address: normalizeAddress(input.address) ?? null,
        priceValue: input.price?.value ?? null,
        priceCurrency: input.price?.currency ?? null,
        description: input.description ?? null,
      });
      if (input.notes !== undefined)
        await tx.query('UPDATE appointments SET notes = $2 WHERE id = $1', [row.id, input.notes]);
      await recordAppointmentEvent(tx, { appointmentId: row.id, type: 'appointment.created', source: 'partner' });
      await addInlineParticipations(
        tx,
        deps,
        provider,
        row,
        input.participations ?? [],
        options.ignoreCapacity ?? false,
      );
      ids.push(row.id);
    }
    return loadAppointmentViews(tx, zone, deps.clock.now(), { providerId: provider.id, ids, includeArchived: true });
  });
}

/** D5: active and cancelled appointments, archived ones only with includeArchived; bare array. */
export async function listAppointments(
  deps: Deps,
  crmId: string,
  providerRef: string,
  query: { productRef?: string; resourceRef?: string; includeArchived?: boolean },
): Promise<AppointmentView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const resource =
    query.resourceRef === undefined ? undefined : await repo.requireResource(deps.db, provider.id, query.resourceRef);
  const product =
    query.productRef === undefined ? undefined : await repo.requireProduct(deps.db, provider.id, query.productRef);
  return loadAppointmentViews(deps.db, provider.time_zone, deps.clock.now(), {
    providerId: provider.id,
    resourceId: resource?.id,
    productId: product?.id,
    includeArchived: query.includeArchived ?? false,
  });
}
