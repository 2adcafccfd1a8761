import { describe, expect, it } from 'vitest';
import { shapeKeyOf } from '../../src/listing/upcomingBookables.js';

const base = {
  refs: [{ ref: 'a@x', field: 'ref' }],
  channelKey: 'RESOURCE_PUBLIC' as const,
  groupFormat: 'yyyy-MM-dd',
  timeFormat: 'HH:mm',
  locale: 'de-DE',
};

describe('shapeKeyOf', () => {
  it('gives one key to one shape', () => {
    expect(shapeKeyOf({ ...base, refs: [{ ref: 'a@x', field: 'ref' }] })).toBe(shapeKeyOf(base));
  });

  it('tells apart shapes that differ in any part', () => {
    const shapes = [
      base,
      { ...base, prdRef: '' },
      { ...base, prdRef: 'p' },
      { ...base, channelKey: 'RESOURCE_EXCLUSIVE' as const },
      { ...base, groupFormat: 'MMMM' },
      { ...base, timeFormat: 'h:mm a' },
      { ...base, locale: 'en' },
      { ...base, refs: [{ ref: 'b@x', field: 'ref' }] },
      { ...base, refs: [...base.refs, { ref: 'b@x', field: 'query.ref' }] },
      {
        ...base,
        refs: [
          { ref: 'b@x', field: 'ref' },
          { ref: 'a@x', field: 'query.ref' },
        ],
      },
      // parts that would run together if they were only concatenated
      { ...base, groupFormat: 'yyyy', timeFormat: '-MM-ddHH:mm' },
      { ...base, locale: 'de', refs: [{ ref: '-DEa@x', field: 'ref' }] },
    ];
    expect(new Set(shapes.map(shapeKeyOf)).size).toBe(shapes.length);
  });
});
