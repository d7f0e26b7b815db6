import { describe, expect, it } from 'vitest';
import { canonicalToolOrder } from './canonical-order.js';
import { checkToolOrder, compareCodeUnits, REST_ENTRY, ToolOrderError } from '../core/tenant/tool-order.js';

const tools = ['search_faq', 'reply', 'Zeta', 'add_tag', 'send_media'];

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('canonical tool order', () => {
  it('defaults to code-unit order (upper case before lower case)', () => {
    expect(canonicalToolOrder(tools)).toEqual(['Zeta', 'add_tag', 'reply', 'search_faq', 'send_media']);
  });
  it('is the same for every permutation of registration order', () => {
    const orders = new Set(permutations(tools).map((p) => canonicalToolOrder(p).join(',')));
    expect(orders.size).toBe(1);
    const listed = ['reply', REST_ENTRY, 'add_tag'];
    expect(new Set(permutations(tools).map((p) => canonicalToolOrder(p, listed).join(','))).size).toBe(1);
  });
  it('puts listed tools in place and unlisted ones at the rest entry, lexicographically', () => {
    expect(canonicalToolOrder(tools, ['send_media', REST_ENTRY, 'reply'])).toEqual([
      'send_media',
      'Zeta',
      'add_tag',
      'search_faq',
      'reply',
    ]);
  });
  it('refuses an unknown name, a duplicate, a missing or doubled rest entry, a tool named like the rest entry', () => {
    expect(checkToolOrder(['nope', REST_ENTRY], tools)).toEqual(['toolOrder names "nope", which is not a tool']);
    expect(checkToolOrder(['reply', 'reply', REST_ENTRY], tools)).toEqual(['toolOrder names "reply" twice']);
    expect(checkToolOrder(['reply'], tools)[0]).toMatch(/exactly once \(found 0\)/);
    expect(checkToolOrder([REST_ENTRY, REST_ENTRY], tools)[0]).toMatch(/exactly once \(found 2\)/);
    expect(checkToolOrder([REST_ENTRY], [...tools, REST_ENTRY])).toContain(`a tool may not be named "${REST_ENTRY}"`);
    expect(() => canonicalToolOrder(tools, ['nope', REST_ENTRY])).toThrow(ToolOrderError);
  });
  it('a valid order has no problems, and the error lists every problem', () => {
    expect(checkToolOrder(['reply', REST_ENTRY], tools)).toEqual([]);
    const err = new ToolOrderError(['a', 'b']);
    expect(err.name).toBe('ToolOrderError');
    expect(err.problems).toEqual(['a', 'b']);
    expect(err.message).toBe('invalid tool order: a; b');
    try {
      canonicalToolOrder(tools, ['nope', 'reply', 'reply']);
      expect.unreachable();
    } catch (e) {
      expect((e as ToolOrderError).problems).toEqual([
        'toolOrder names "nope", which is not a tool',
        'toolOrder names "reply" twice',
        `toolOrder must contain "${REST_ENTRY}" exactly once (found 0)`,
      ]);
    }
  });
  it('a duplicate registration is listed once', () => {
    expect(canonicalToolOrder(['b', 'a', 'b'])).toEqual(['a', 'b']);
  });
  it('compareCodeUnits: negative, positive, zero', () => {
    expect(compareCodeUnits('Z', 'a')).toBe(-1);
    expect(compareCodeUnits('a', 'Z')).toBe(1);
    expect(compareCodeUnits('a', 'a')).toBe(0);
  });
});
