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
