import fc from 'fast-check';
import { seeded } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/listing/listingCompute.js';

/** A listing-shaped object: group texts (any string, array indices and '__proto__' among them) to items, and a flag. */
function withoutPrototype(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) object[key] = value;
  return object;
}

describe('jsonBytes', () => {
  it('is the UTF-8 of JSON.stringify, member order included', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('2026', '0', '10', '__proto__', 'Mär 1', '😀 ✓'));
    const value = fc.oneof(fc.jsonValue(), fc.constant(undefined));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value)), (entries) => {
        const object = withoutPrototype(entries);
        expect(jsonBytes(object).equals(Buffer.from(JSON.stringify(object)))).toBe(true);
      }),
      seeded('jsonBytes: the UTF-8 of JSON.stringify'),
    );
  });

  it('places every member at its bytes, and takes members given as bytes as they are', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('2026', '__proto__', 'Mär 1', '😀 ✓'));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.jsonValue())), fc.func(fc.boolean()), (entries, reuse) => {
        const object = withoutPrototype(entries);
        const placed = new Map<string, Buffer>();
        const first = jsonBytes(
          object,
          () => undefined,
          (k, bytes) => placed.set(k, bytes),
        );
        for (const [k, bytes] of placed)
          expect(bytes.toString()).toBe(`${JSON.stringify(k)}:${JSON.stringify(object[k])}`);
        // a second answer from the bytes of the first, for some members: the same bytes
        const again = jsonBytes(object, (k) => (reuse(k) ? placed.get(k) : undefined));
        expect(again.equals(first)).toBe(true);
      }),
      seeded('jsonBytes: members placed at their bytes'),
    );
  });

  it('serializes an empty object and one whose members are all undefined as {}', () => {
    expect(jsonBytes({}).toString()).toBe('{}');
    expect(jsonBytes({ a: undefined }).toString()).toBe('{}');
  });
});
