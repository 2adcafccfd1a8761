/** What a booking channel (channelKey) shows to consumers (docs/api.md, Booking rules); booking processes live in offerings/channels.ts. */
import type { ChannelKey } from '../offerings/channels.js';

/** Exclusive products are offered only on RESOURCE_EXCLUSIVE. */
export function productVisibleOn(product: { exclusive: boolean }, key: ChannelKey): boolean {
  return !product.exclusive || key === 'RESOURCE_EXCLUSIVE';
}

export function publicVisible(key: ChannelKey): boolean {
  return key !== 'RESOURCE_EXCLUSIVE';
}
