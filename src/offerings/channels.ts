/**
 * Booking channels of a resource (docs/api.md, Booking rules): a booking process per channelKey, IMMEDIATE unless set,
 * and what each channel shows to consumers.
 */
export const CHANNEL_KEYS = ['RESOURCE_PUBLIC', 'RESOURCE_EXCLUSIVE', 'RESOURCE_REFERENCE', 'CALENDAR_PUBLIC'] as const;
export type ChannelKey = (typeof CHANNEL_KEYS)[number];

export const BOOKING_PROCESSES = ['IMMEDIATE', 'REQUESTED'] as const;
export type BookingProcess = (typeof BOOKING_PROCESSES)[number];

export const DEFAULT_CHANNEL_KEY: ChannelKey = 'RESOURCE_PUBLIC';

/** As stored in resources.channels: only the keys ever set. */
export type StoredChannels = Partial<Record<ChannelKey, { bookingProcess: BookingProcess }>>;
/** As answered: every key with its effective process. */
export type Channels = Record<ChannelKey, { bookingProcess: BookingProcess }>;

export function isChannelKey(value: string): value is ChannelKey {
  return (CHANNEL_KEYS as readonly string[]).includes(value);
}

export function effectiveChannels(stored: StoredChannels | null | undefined): Channels {
  const out = {} as Channels;
  for (const key of CHANNEL_KEYS) out[key] = { bookingProcess: stored?.[key]?.bookingProcess ?? 'IMMEDIATE' };
  return out;
}

/** The booking process of a resource on a channel; what the public booking flow asks. */
export function bookingProcessOf(
  stored: StoredChannels | null | undefined,
  key: ChannelKey = DEFAULT_CHANNEL_KEY,
): BookingProcess {
  return stored?.[key]?.bookingProcess ?? 'IMMEDIATE';
}

/** Given keys change, the others keep their setting (B4 and B3-as-update). */
export function mergeChannels(current: StoredChannels | null | undefined, changes: StoredChannels): StoredChannels {
  return { ...(current ?? {}), ...changes };
}

/** Exclusive products are offered only on RESOURCE_EXCLUSIVE. */
export function productVisibleOn(product: { exclusive: boolean }, key: ChannelKey): boolean {
  return !product.exclusive || key === 'RESOURCE_EXCLUSIVE';
}

/** Whether answers on this channel are public (A1's public_visible): every channel but RESOURCE_EXCLUSIVE. */
export function publicVisible(key: ChannelKey): boolean {
  return key !== 'RESOURCE_EXCLUSIVE';
}
