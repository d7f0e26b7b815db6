import { describe, expect, it } from 'vitest';
import { DeadLetterSchema, salvagedLetters } from './dead-letters.js';

const AT = new Date('2030-01-02T03:04:05.000Z');
const rows = (states: Record<string, string>) =>
  new Map(Object.entries(states).map(([id, state]) => [id, { state: state as never }]));
const parse = (letter: string) => DeadLetterSchema.parse(JSON.parse(letter));

describe('salvagedLetters: what can be read of an entry that no longer parses', () => {
  const raw = {
    turnId: 'e1',
    stagedByTurnId: 'turn_0',
    contactId: 'c9',
    actions: [
      { id: 'a_done', kind: 'add_tag', tool: 't', summary: 's' },
      { id: 'a_dead', kind: 'add_tag', tool: 't', summary: 's' },
      { id: 'a_unknown', kind: 'add_tag', tool: 't', summary: 's' },
      { id: 'a_claimed', kind: 'send_flow', tool: 'send_media', summary: 'send the brochure' },
      { id: 'a_new', kind: 'retired_kind', tool: 'x'.repeat(600) },
      { kind: 'add_tag', summary: 'no id: cannot be named' },
      'not an object',
    ],
  };

  it('one letter per readable action not performed nor already listed: claimed unknown, never claimed dead', () => {
    const out = salvagedLetters(
      'ten',
      'e1',
      raw,
      rows({ a_done: 'done', a_dead: 'dead', a_unknown: 'unknown', a_claimed: 'claimed' }),
      'why',
      AT,
    );
    expect(out.map((o) => [o.actionId, o.state])).toEqual([
      ['a_claimed', 'unknown'],
      ['a_new', 'dead'],
    ]);
    const [claimed, fresh] = out.map((o) => parse(o.letter));
    expect(claimed).toEqual({
      tenantId: 'ten',
      turnId: 'turn_0',
      entryId: 'e1',
      actionId: 'a_claimed',
      contactId: 'c9',
      kind: 'send_flow',
      tool: 'send_media',
      summary: 'send the brochure',
      idempotent: false,
      state: 'unknown',
      detail: 'why',
      at: AT.toISOString(),
    });
    // An unknown kind is left out; long text is cut; what is missing has a plain stand-in.
    expect(fresh!.kind).toBeUndefined();
    expect(fresh!.tool).toHaveLength(500);
    expect(fresh!.summary).toBe('an action of an unreadable entry');
  });

  it('with no readable action (or no entry at all), one unknown letter for the whole entry', () => {
    for (const r of [null, 'garbage', { actions: 'nope' }, { actions: [{ kind: 'add_tag' }] }]) {
      const out = salvagedLetters('ten', 'e2', r, rows({}), 'gone', AT);
      expect(out.map((o) => [o.actionId, o.state])).toEqual([['e2.entry', 'unknown']]);
      expect(parse(out[0]!.letter)).toMatchObject({
        turnId: 'e2',
        contactId: '',
        tool: 'unknown',
        summary: 'the whole outbox entry',
      });
    }
    // Listed once: a second look finds the entry's own row terminal.
    expect(salvagedLetters('ten', 'e2', null, rows({ 'e2.entry': 'unknown' }), 'gone', AT)).toEqual([]);
  });
});
