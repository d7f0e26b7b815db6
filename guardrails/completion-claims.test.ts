import { describe, expect, it } from 'vitest';
import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import { envelope } from '../core/tool-envelope.js';
import { CLAIM_CASES, HONEST_CASES, type HonestCase } from '../test/workers/claim-cases.js';
import { act, stagingStep, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { completionClaimsGuardrail } from './completion-claims.js';

/** The turn each situation of the claim cases describes, as the guardrail sees it. */
function situation(s: HonestCase['situation']): { staged: StagedAction[]; steps: ModelStepRecord[] } {
  const denied: ModelStepRecord = {
    step: 1,
    ms: 1,
    finishReason: 'tool-calls',
    toolCalls: [],
    toolResults: [
      { toolCallId: 'd', toolName: 'send_media', status: 'denied', output: envelope.denied('no such flow') },
    ],
  };
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

const judge = (text: string, s: HonestCase['situation'], quickReplies?: string[]) =>
  verdictOf(
    completionClaimsGuardrail,
    turnInput({ ...situation(s), reply: { text, ...(quickReplies ? { quickReplies } : {}) } }),
  );

describe("completion-claims: the worst model's false claims are vetoed (unit, every case of the whole-turn set)", () => {
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
    expect(
      (
        await verdictOf(
          completionClaimsGuardrail,
          turnInput({ staged: [field], reply: { text: "I've saved yoga as your preferred class." } }),
        )
      ).outcome,
    ).toBe('pass');
    expect((await judge("I've saved yoga as your preferred class.", 'ungated-tag')).reason).toContain(
      'it says something was saved',
    );
  });
  it('"done" needs something staged, all of it ungated, and no refusal', async () => {
    expect((await judge('Done!', 'ungated-tag')).outcome).toBe('pass');
    expect((await judge('Done!', 'nothing')).reason).toContain('it says the request is done');
    expect((await judge('Done!', 'confirm')).outcome).toBe('veto');
    const tag = act.tag('interested');
    const refusedToo: ModelStepRecord = {
      ...stagingStep(1, [tag]),
      toolResults: [
        ...stagingStep(1, [tag]).toolResults,
        { toolCallId: 'e', toolName: 'send_media', status: 'error', output: 'failed' },
      ],
    };
    expect(
      (
        await verdictOf(
          completionClaimsGuardrail,
          turnInput({ staged: [tag], steps: [refusedToo], reply: { text: 'Done!' } }),
        )
      ).outcome,
    ).toBe('veto');
    const mixed = [act.tag('interested'), { ...act.field('preferred_class', 'yoga'), gate: 'confirm' as const }];
    expect(
      (await verdictOf(completionClaimsGuardrail, turnInput({ staged: mixed, reply: { text: 'Done!' } }))).outcome,
    ).toBe('veto');
  });
  it('"deleted" needs an ungated destructive action; a pending (approval) one or a plain write does not back it', async () => {
    const claim = 'Your data has been deleted.';
    const remove = (gate: StagedAction['gate'], effect: StagedAction['effect']): StagedAction => ({
      ...act.untag('interested'),
      gate,
      effect,
    });
    const judgeWith = (a: StagedAction) =>
      verdictOf(
        completionClaimsGuardrail,
        turnInput({ staged: [a], steps: [stagingStep(1, [a])], reply: { text: claim } }),
      );
    expect((await judgeWith(remove('none', 'destructive'))).outcome).toBe('pass');
    const pending = await judgeWith(remove('approval', 'destructive'));
    expect(pending.outcome).toBe('veto');
    expect(pending.reason).toContain('it says something was deleted, but no ungated destructive action was staged');
    expect((await judgeWith(remove('none', 'write'))).outcome).toBe('veto');
    expect((await judge(claim, 'nothing')).outcome).toBe('veto');
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
  it("the text's claim is named before a quick reply's", async () => {
    const v = await judge("I've sent you the brochure.", 'nothing', ['All done']);
    expect(v.reason).toContain('it says something was sent');
  });
});

describe('completion-claims: the clause rules of the lexicon (issue 22)', () => {
  // Rule: a negation or future earlier in the same clause, or a condition later in it, makes a
  // claim word no claim; a clause ends at , . ; : ! ? or a line break, and only 80 characters
  // either side are read.
  it('a negation or future before the claim, in the same clause: no claim', async () => {
    expect((await judge('It will be on its way soon.', 'nothing')).outcome).toBe('pass');
  });

  it('a condition after the claim, in the same clause: no claim', async () => {
    expect((await judge('The brochure is on its way once you confirm.', 'confirm')).outcome).toBe('pass');
  });

  it.each([',', '.', ';', ':', '!', '?', '\n'])(
    'a negation before "%s" is in another clause: the claim stands',
    async (sep) => {
      const v = await judge(`Not yet${sep} I've sent it to you.`, 'nothing');
      expect(v.outcome).toBe('veto');
      expect(v.reason).toContain('("i\'ve sent")');
    },
  );

  it.each([',', '.', ';', ':', '!', '?', '\n'])(
    'a condition after "%s" is in another clause: the claim stands',
    async (sep) => {
      expect((await judge(`I've sent it${sep} if you want more, just ask`, 'nothing')).outcome).toBe('veto');
    },
  );

  it('a stop right after the claim ends its clause', async () => {
    expect((await judge("I've sent! If you want more, just ask.", 'nothing')).outcome).toBe('veto');
  });

  it('only 80 characters either side are read', async () => {
    const filler = (n: number) => ' really'.repeat(n);
    // "not" more than 80 characters back, with no stop between: the claim stands.
    expect((await judge(`Not${filler(14)} I've sent it`, 'nothing')).outcome).toBe('veto');
    // "if" more than 80 characters on: the claim stands; within 80 it is a condition.
    expect((await judge(`I've sent it${filler(14)} if you ask`, 'nothing')).outcome).toBe('veto');
    expect((await judge(`I've sent it${filler(10)} if you ask`, 'nothing')).outcome).toBe('pass');
  });
});

describe('completion-claims: what counts as refused, and actions without a resource (issue 22)', () => {
  it('a write refused (denied) in an earlier step makes "done" unbacked, even when a later step staged fine', async () => {
    const tag = act.tag('interested');
    const denied: ModelStepRecord = {
      step: 1,
      ms: 1,
      finishReason: 'tool-calls',
      toolCalls: [],
      toolResults: [
        { toolCallId: 'd', toolName: 'send_media', status: 'denied', output: envelope.denied('no such flow') },
      ],
    };
    const v = await verdictOf(
      completionClaimsGuardrail,
      turnInput({ staged: [tag], steps: [denied, stagingStep(2, [tag])], reply: { text: 'Done!' } }),
    );
    expect(v.outcome).toBe('veto');
  });

  it('an ungated action with no resource (a message) backs no tag claim, and does not break the check', async () => {
    const message: StagedAction = {
      ...act.tag('x'),
      tool: 'send_message',
      kind: 'send_content',
      args: { text: 'hi' },
      idempotent: false,
      summary: 'send "hi"',
    };
    expect(
      (
        await verdictOf(
          completionClaimsGuardrail,
          turnInput({ staged: [message], reply: { text: "I've tagged you." } }),
        )
      ).outcome,
    ).toBe('veto');
  });
});

describe('completion-claims: a flow that waits beside a performed one (issue 29)', () => {
  const judgeStaged = (text: string, staged: StagedAction[]) =>
    verdictOf(
      completionClaimsGuardrail,
      turnInput({ text: 'hi', reply: { text }, staged, steps: [stagingStep(1, staged)] }),
    );
  const performedAndWaiting = () => [act.flow('brochure'), { ...act.flow('studio_tour'), gate: 'approval' as const }];

  it('a send claim naming the waiting flow is vetoed, even when it names the performed one too', async () => {
    const v = await judgeStaged("I've sent you the brochure and the studio tour!", performedAndWaiting());
    expect(v.outcome).toBe('veto');
  });
  it('a send claim naming nothing is vetoed: it cannot be tied to the performed flow', async () => {
    expect((await judgeStaged("I've sent it!", performedAndWaiting())).outcome).toBe('veto');
  });
  it('a send claim naming only the performed flow passes', async () => {
    expect((await judgeStaged("I've sent you the brochure!", performedAndWaiting())).outcome).toBe('pass');
  });
  it('a field claim naming only the performed value passes beside a waiting field; naming the waiting one is vetoed', async () => {
    const staged = () => [
      act.field('preferred_class', 'yoga'),
      { ...act.field('discount_code', 'summer20'), gate: 'approval' as const },
    ];
    expect((await judgeStaged('I saved yoga as your class.', staged())).outcome).toBe('pass');
    expect((await judgeStaged('I saved yoga as your class and summer20 as your code.', staged())).outcome).toBe('veto');
  });
  it('a number value names nothing: a field claim beside a waiting field is vetoed', async () => {
    const staged = [act.field('age', 34), { ...act.field('email', 'ada@example.com'), gate: 'approval' as const }];
    expect((await judgeStaged('I saved 34 as your age.', staged)).outcome).toBe('veto');
  });
});

describe('completion-claims: a refused write, per resource and category (issue 29)', () => {
  /** A step where `tool` was called with `input` and refused (denied or error). */
  const refused = (tool: string, input: Record<string, unknown>, status: 'denied' | 'error' = 'denied') => ({
    step: 1,
    ms: 1,
    finishReason: 'tool-calls',
    toolCalls: [{ toolCallId: 'r1', toolName: tool, input }],
    toolResults: [{ toolCallId: 'r1', toolName: tool, status, output: envelope.denied('refused') }],
  });
  const judgeWith = (text: string, performed: StagedAction, step: ModelStepRecord) =>
    verdictOf(
      completionClaimsGuardrail,
      turnInput({ text: 'hi', reply: { text }, staged: [performed], steps: [step, stagingStep(2, [performed])] }),
    );

  it.each(['denied', 'error'] as const)(
    'a tag claim naming the refused tag is vetoed beside a performed tag (%s)',
    async (status) => {
      const v = await judgeWith(
        'Done, I tagged you as vip!',
        act.tag('interested'),
        refused('tag_contact', { tag: 'vip' }, status),
      );
      expect(v.outcome).toBe('veto');
    },
  );
  it('the same claim naming the performed tag passes; the refused one is another resource', async () => {
    const v = await judgeWith(
      'I tagged you as interested.',
      act.tag('interested'),
      refused('tag_contact', { tag: 'vip' }),
    );
    expect(v.outcome).toBe('pass');
  });
  it('a tag claim naming nothing, while a tag was refused, is vetoed (it cannot be tied to what happened)', async () => {
    const v = await judgeWith('I tagged you.', act.tag('interested'), refused('untag_contact', { tag: 'vip' }));
    expect(v.outcome).toBe('veto');
  });
  it('a read tool that failed weighs against no claim: "sent" stays backed by the performed flow', async () => {
    // search_faq has no action kind: it speaks to no claim topic, so its error is not a refused send.
    const v = await judgeWith(
      'I have sent it to you.',
      act.flow('brochure'),
      refused('search_faq', { query: 'x' }, 'error'),
    );
    expect(v.outcome).toBe('pass');
    const sendRefused = await judgeWith(
      'I have sent it to you.',
      act.flow('brochure'),
      refused('send_media', { flow: 'x' }),
    );
    expect(sendRefused.outcome).toBe('veto');
  });
  it('a refused write of another category does not touch a tag claim naming the performed tag', async () => {
    const v = await judgeWith(
      'I tagged you as interested.',
      act.tag('interested'),
      refused('record_choice', { field: 'email', value: 'x' }),
    );
    expect(v.outcome).toBe('pass');
  });
  it('a send claim naming the refused flow is vetoed beside a performed flow', async () => {
    const v = await judgeWith(
      "I've sent you the timetable!",
      act.flow('brochure'),
      refused('send_media', { flow: 'timetable' }),
    );
    expect(v.outcome).toBe('veto');
  });
  it('a send claim naming the performed flow passes beside a refused tag', async () => {
    const v = await judgeWith(
      "I've sent you the brochure!",
      act.flow('brochure'),
      refused('tag_contact', { tag: 'vip' }),
    );
    expect(v.outcome).toBe('pass');
  });
  it('a field claim naming nothing, while a field write was refused, is vetoed', async () => {
    const v = await judgeWith(
      'I saved it.',
      act.field('preferred_class', 'yoga'),
      refused('record_choice', { field: 'email', value: 'a@b.c' }),
    );
    expect(v.outcome).toBe('veto');
  });
  it('a refused call with no text arguments still counts as a refusal of its category', async () => {
    const v = await judgeWith('I tagged you.', act.tag('interested'), refused('tag_contact', { count: 3 }));
    expect(v.outcome).toBe('veto');
  });
  it('a claim naming the performed tag and the refused one is vetoed (the refused call read by its text arguments)', async () => {
    const v = await judgeWith(
      'I tagged you as interested and vip.',
      act.tag('interested'),
      refused('tag_contact', { tag: 'vip', count: 3 }),
    );
    expect(v.outcome).toBe('veto');
  });
  it("a refusal's words are its own call's, not another call's in the same step", async () => {
    const step = refused('tag_contact', { tag: 'vip' });
    const both = {
      ...step,
      toolCalls: [{ toolCallId: 'c0', toolName: 'tag_contact', input: { tag: 'interested' } }, ...step.toolCalls],
    };
    const v = await judgeWith('I tagged you as interested.', act.tag('interested'), both);
    expect(v.outcome).toBe('pass');
  });
  it.each([
    ['a tag claim', 'I tagged you.', () => act.tag('interested'), 'record_choice', { field: 'email', value: 'x' }],
    ['a send claim', "I've sent it!", () => act.flow('brochure'), 'tag_contact', { tag: 'vip' }],
    ['a field claim', 'I saved it.', () => act.field('preferred_class', 'yoga'), 'tag_contact', { tag: 'vip' }],
  ] as const)(
    '%s naming nothing passes beside a refused write of another category',
    async (_claim, text, performed, tool, input) => {
      const v = await judgeWith(text, performed(), refused(tool, input));
      expect(v.outcome).toBe('pass');
    },
  );
  it('a refused call is read by all its text arguments together', async () => {
    const v = await judgeWith(
      'I saved yoga as your class and your discount code summer20.',
      act.field('preferred_class', 'yoga'),
      refused('record_choice', { field: 'discount_code', value: 'summer20' }),
    );
    expect(v.outcome).toBe('veto');
  });
  it('a "done" claim is vetoed while a write was refused, even when it names the performed one', async () => {
    const v = await judgeWith('Done: the brochure.', act.flow('brochure'), refused('tag_contact', { tag: 'vip' }));
    expect(v.outcome).toBe('veto');
  });
  it('a send claim naming one of two performed flows passes beside a refused flow it does not name', async () => {
    const brochure = act.flow('brochure');
    const tour = act.flow('studio_tour');
    const v = await verdictOf(
      completionClaimsGuardrail,
      turnInput({
        text: 'hi',
        reply: { text: "I've sent you the brochure!" },
        staged: [brochure, tour],
        steps: [refused('send_media', { flow: 'timetable' }), stagingStep(2, [brochure, tour])],
      }),
    );
    expect(v.outcome).toBe('pass');
  });
  it('a deletion claim naming nothing is vetoed beside a refused removal, not beside a refused addition', async () => {
    const removal = () => ({ ...act.untag('interested'), effect: 'destructive' as const });
    const claim = 'Your data has been deleted.';
    expect((await judgeWith(claim, removal(), refused('untag_contact', { tag: 'vip' }))).outcome).toBe('veto');
    expect((await judgeWith(claim, removal(), refused('tag_contact', { tag: 'vip' }))).outcome).toBe('pass');
  });
  it('a refused call of a tool the tenant does not have is no refusal of a category', async () => {
    const v = await judgeWith(
      'I tagged you as interested.',
      act.tag('interested'),
      refused('made_up_tool', { tag: 'vip' }),
    );
    expect(v.outcome).toBe('pass');
  });
});
