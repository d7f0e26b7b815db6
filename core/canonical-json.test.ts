import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson: the same call, the same bytes', () => {
  it('sorts keys by code unit, with no whitespace', () => {
    expect(canonicalJson({ b: 1, a: 2, B: 3 })).toBe('{"B":3,"a":2,"b":1}');
  });
  it('sorts at every depth, inside arrays too, and keeps array order', () => {
    expect(canonicalJson({ z: { y: 1, x: [{ d: 1, c: 2 }, 3] }, a: null })).toBe(
      '{"a":null,"z":{"x":[{"c":2,"d":1},3],"y":1}}',
    );
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });
  it('two objects with the same content in another key order are equal', () => {
    expect(canonicalJson({ tag: 'vip', meta: { b: true, a: [1, { y: 2, x: 1 }] } })).toBe(
      canonicalJson({ meta: { a: [1, { x: 1, y: 2 }], b: true }, tag: 'vip' }),
    );
  });
  it('different content is different bytes', () => {
    expect(canonicalJson({ tag: 'vip' })).not.toBe(canonicalJson({ tag: 'VIP' }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
  it('scalars are plain JSON', () => {
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(0)).toBe('0');
    expect(canonicalJson(false)).toBe('false');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });
});
