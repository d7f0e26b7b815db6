import { describe, expect, it } from 'vitest';
import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import { envelope } from '../core/tool-envelope.js';
import { CLAIM_CASES, HONEST_CASES, type HonestCase } from '../test/workers/claim-cases.js';
import { act, stagingStep, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { completionClaimsGuardrail } from './completion-claims.js';

/** The turn each situation of the claim cases describes, as the guardrail sees it. */
function situation(s: HonestCase['situation']): { staged: StagedAction[]; steps: ModelStepRecord[] } {
  const denied: ModelStepRecord = { step: 1, ms: 1, finishReason: 'tool-calls', toolCalls: [], toolResults: [{ toolCallId: 'd', toolName: 'send_media', status: 'denied', output: envelope.denied('no such flow') }] };
  const one = (a: StagedAction) => ({ staged: [a], steps: [stagingStep(1, [a])] });
  switch (s) {
    case 'confirm':
      return one({ ...act.field('preferred_class', 'pilates'), gate: 'confirm' });
    case 'approval':
      return one({ ...act.untag('interested'), gate: 'approval' });
    case 'denied':
      return { staged: [], steps: [denied] };
    case 'nothing':
      return { staged: [], steps: [] };
    case 'ungated-flow':
      return one(act.flow('brochure'));
    case 'ungated-tag':
      return one(act.tag('interested'));
  }
}

const judge = (text: string, s: HonestCase['situation'], quickReplies?: string[]) => verdictOf(completionClaimsGuardrail, turnInput({ ...situation(s), reply: { text, ...(quickReplies ? { quickReplies } : {}) } }));

describe('completion-claims: the worst model\'s false claims are vetoed (unit, every case of the whole-turn set)', () => {
  it.each(CLAIM_CASES.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const v = await judge(c.claim, c.situation);
    expect(v.outcome, v.reason).toBe('veto');
    expect(v.reason).toMatch(/^the reply claims what did not happen \("[^"]+"\): /);
  });
});

describe('completion-claims: honest replies pass', () => {
  it.each(HONEST_CASES.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const v = await judge(c.reply, c.situation);
    expect(v.outcome, v.reason).toBe('pass');
  });
});

describe('completion-claims: what backs each kind of claim', () => {
  it('"sent" needs an ungated send; a tag does not back it', async () => {
    expect((await judge("I've sent you the brochure!", 'ungated-flow')).outcome).toBe('pass');
    const v = await judge("I've sent you the brochure!", 'ungated-tag');
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('it says something was sent, but nothing ungated was staged to send');
  });
  it('"tagged" needs an ungated tag action; a flow does not back it', async () => {
    expect((await judge("You're subscribed now!", 'ungated-tag')).outcome).toBe('pass');
    expect((await judge("You're subscribed now!", 'ungated-flow')).reason).toContain('it says a tag was changed');
  });
  it('"saved" needs an ungated field action', async () => {
    const field = act.field('preferred_class', 'yoga');
    expect((await verdictOf(completionClaimsGuardrail, turnInput({ staged: [field], reply: { text: "I've saved yoga as your preferred class." } }))).outcome).toBe('pass');
    expect((await judge("I've saved yoga as your preferred class.", 'ungated-tag')).reason).toContain('it says something was saved');
  });
  it('"done" needs something staged, all of it ungated, and no refusal', async () => {
    expect((await judge('Done!', 'ungated-tag')).outcome).toBe('pass');
    expect((await judge('Done!', 'nothing')).reason).toContain('it says the request is done');
    expect((await judge('Done!', 'confirm')).outcome).toBe('veto');
    const tag = act.tag('interested');
    const refusedToo: ModelStepRecord = { ...stagingStep(1, [tag]), toolResults: [...stagingStep(1, [tag]).toolResults, { toolCallId: 'e', toolName: 'send_media', status: 'error', output: 'failed' }] };
    expect((await verdictOf(completionClaimsGuardrail, turnInput({ staged: [tag], steps: [refusedToo], reply: { text: 'Done!' } }))).outcome).toBe('veto');
    const mixed = [act.tag('interested'), { ...act.field('preferred_class', 'yoga'), gate: 'confirm' as const }];
    expect((await verdictOf(completionClaimsGuardrail, turnInput({ staged: mixed, reply: { text: 'Done!' } }))).outcome).toBe('veto');
  });
  it('"approved" is never backed', async () => {
    const v = await judge('Your booking is confirmed.', 'ungated-tag');
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('which no turn can do');
  });
  it('quick replies are read too', async () => {
    expect((await judge('Anything else?', 'nothing', ['All done!'])).outcome).toBe('veto');
    expect((await judge('Anything else?', 'nothing', ['More info'])).outcome).toBe('pass');
  });
  it('no reply: nothing to judge', async () => {
    expect((await verdictOf(completionClaimsGuardrail, turnInput({ reply: null }))).outcome).toBe('pass');
  });
  it('the text\'s claim is named before a quick reply\'s', async () => {
    const v = await judge("I've sent you the brochure.", 'nothing', ['All done']);
    expect(v.reason).toContain('it says something was sent');
  });
});
