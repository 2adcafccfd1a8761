import { invalid } from '../errors.js';
import type { ChannelType, ContactChannel } from './contact.js';

/** A channel as a request gives it: label may be left out (keep) or null (clear). */
export interface ContactChannelInput {
  type: ChannelType;
  label?: string | null;
  value: string;
}

export interface StoredChannel {
  type: ChannelType;
  label: string | null;
  value: string;
}

/** Only one channel per type can exist: a request naming a type twice is refused (400). */
export function assertOneChannelPerType(channels: ContactChannelInput[], field = 'body.contactChannels'): void {
  const seen = new Set<string>();
  for (const c of channels) {
    if (seen.has(c.type))
      throw invalid(`${field} has more than one channel of type ${c.type}; only one channel per type can exist`);
    seen.add(c.type);
  }
}

/**
 * The B8 merge rule: a type in the request that does not exist yet is created, a type that exists
 * is updated (its label kept when the request leaves label out), a type missing from the request
 * is removed. The result follows the order of the request.
 */
export function mergeContactChannels(current: ContactChannel[], given: ContactChannelInput[]): StoredChannel[] {
  return given.map((g) => {
    const existing = current.find((c) => c.type === g.type);
    return { type: g.type, label: g.label !== undefined ? g.label : (existing?.label ?? null), value: g.value };
  });
}
