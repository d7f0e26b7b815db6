import { describe, expect, it } from 'vitest';
import { caseInvariantFailures } from './invariants.js';
import type { TurnObservation } from './turn-observation.js';

const turn = (over: Partial<TurnObservation>): TurnObservation =>
  ({ committed: [], performed: [], ...over }) as TurnObservation;
const flow = { kind: 'send_flow', tool: 'send_media', args: { flowName: 'brochure', flowNs: 'ns1' } };
const sent = { call: 'sendFlow', path: '/fb/sending/sendFlow', status: 200, outcome: 'ok', flow: 'brochure' };

describe('case invariants, whatever the expectations', () => {
  it('pass when every performed call was committed, each send once', () => {
    expect(caseInvariantFailures([turn({ committed: [flow], performed: [sent] })])).toEqual([]);
    // Committed in one turn, delivered during the next: still fine.
    expect(caseInvariantFailures([turn({ committed: [flow] }), turn({ performed: [sent] })])).toEqual([]);
  });
  it('a call no committed entry asked for is outside the outbox', () => {
    expect(caseInvariantFailures([turn({ performed: [sent] })])).toEqual([
      'invariant: sendFlow:brochure was performed, but no committed outbox entry asks for it',
    ]);
    expect(
      caseInvariantFailures([
        turn({ performed: [{ call: 'sendContent', path: '/x', status: 200, outcome: 'ok', text: 'hello' }] }),
      ])[0],
    ).toContain('no committed outbox entry sends it');
  });
  it('a send performed twice for one commit is a duplicate; an idempotent tag twice is not', () => {
    expect(caseInvariantFailures([turn({ committed: [flow], performed: [sent, sent] })])).toEqual([
      'invariant: sendFlow:brochure was performed 2 times, committed 1',
    ]);
    const tag = { kind: 'add_tag', tool: 't', args: { tag: 'vip' } };
    const tagged = { call: 'addTag', path: '/x', status: 200, outcome: 'ok', tag: 'vip' };
    expect(caseInvariantFailures([turn({ committed: [tag], performed: [tagged, tagged] })])).toEqual([]);
  });
});
