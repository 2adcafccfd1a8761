/**
 * A reservation's lookup (the resource, its products and the slot the request names), kept by the
 * instance per reference and slot, so that a reservation of a slot booked before costs one
 * statement instead of two. A kept lookup is never trusted on its own:
 * - the claim's statement checks it before claim_place takes anything (checked_lookup, migration
 *   015): the resource's configuration version (every change to the resource, its provider,
 *   products or timeslots moves it; bookings do not), a short reference still naming one resource,
 *   and the named appointment still at its times with its product. When it no longer holds, the
 *   statement writes nothing and the request is decided again from a fresh lookup;
 * - a request that a kept lookup refuses before anything is written (a 4xx of the request checks)
 *   is decided again from a fresh lookup too, so a stale lookup never refuses a valid request.
 * Refusals of the claim itself (full, overlapping, closed) were decided under the appointment's
 * lock after the check passed, and stand.
 */
import { DomainError } from '../errors.js';
import { StaleLookup } from '../scheduling/claimPlace.js';
import type { Db } from '../storage/db.js';
import { bookingLookupsTotal } from './metrics.js';
import { shortReference } from './publicResources.js';
import { bookableResource, type BookableResource } from './slotRequest.js';

/** Lookups kept per instance and database; the oldest go first. */
const MAX_KEPT = 5_000;

/** What the claim's statement checks of a kept lookup (checked_lookup's p_lookup). */
export type LookupCheck = Record<string, unknown>;

export function lookupCheck(ref: string, b: BookableResource): LookupCheck {
  const a = b.slotAppointment;
  return {
    resource: b.resource.id,
    config_version: b.configVersion,
    short_ref: shortReference(ref),
    appointment: a?.id ?? null,
    start_at: a?.start_at ?? null,
    end_at: a?.end_at ?? null,
    product_id: a?.product_id ?? null,
  };
}

export interface LookupUse<D, T> {
  /** checks the request against the lookup and decides what to write; throws a DomainError (4xx) to refuse */
  decide(booking: BookableResource): D | Promise<D>;
  /** writes what was decided; `check`, when given, must be checked by the writing statement */
  write(decided: D, booking: BookableResource, check: LookupCheck | undefined): Promise<T>;
}

const keptByDb = new WeakMap<Db, Map<string, BookableResource>>();

function keptLookups(db: Db): Map<string, BookableResource> {
  let kept = keptByDb.get(db);
  if (!kept) keptByDb.set(db, (kept = new Map()));
  return kept;
}

const STALE = Symbol('stale lookup');

async function fromKept<D, T>(ref: string, booking: BookableResource, use: LookupUse<D, T>): Promise<T | typeof STALE> {
  let decided: D;
  try {
    decided = await use.decide(booking);
  } catch (err) {
    if (err instanceof DomainError) return STALE;
    throw err;
  }
  try {
    return await use.write(decided, booking, lookupCheck(ref, booking));
  } catch (err) {
    if (err instanceof StaleLookup) return STALE;
    throw err;
  }
}

/** Decides and writes a booking request of `ref` naming `slotUuid`, from the kept lookup when there is one. */
export async function withBookingLookup<D, T>(db: Db, ref: string, slotUuid: string, use: LookupUse<D, T>): Promise<T> {
  const kept = keptLookups(db);
  const key = `${ref} ${slotUuid}`;
  const known = kept.get(key);
  if (known) {
    const result = await fromKept(ref, known, use);
    bookingLookupsTotal.inc({ lookup: result === STALE ? 'stale' : 'kept' });
    if (result !== STALE) return result;
    if (kept.get(key) === known) kept.delete(key);
  } else {
    bookingLookupsTotal.inc({ lookup: 'read' });
  }
  const fresh = await bookableResource(db, ref, slotUuid);
  const decided = await use.decide(fresh);
  kept.set(key, fresh);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  return use.write(decided, fresh, undefined);
}
