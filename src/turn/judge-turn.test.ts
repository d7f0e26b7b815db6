import { describe, expect, it } from 'vitest';
import type { ModelStepRecord } from '../../core/turn-record.js';
import type { Guardrail, GuardrailInput, GuardrailResult } from '../../guardrails/guardrail.js';
import { act, stagingStep, testConfig } from '../../test/support/guardrail-input.js';
import { reply as scriptedReply } from '../../test/support/scripted-model.js';
import { judgeTurn, type JudgeInput } from './judge-turn.js';
import type { LoopOutcome } from './model-loop.js';

/** A guardrail that records what it was shown and answers `result`. */
function recording(name: string, result: GuardrailResult | (() => Promise<GuardrailResult>)) {
  const seen: GuardrailInput[] = [];
  const guardrail: Guardrail = {
    name,
    check: (input) => {
      seen.push(input);
      return typeof result === 'function' ? result() : result;
    },
  };
  return { guardrail, seen };
}

const config = testConfig();
const staged = [act.tag('interested')];
const modelReply = scriptedReply('Tagged you as interested.');
const replyStep = (step: number, input: unknown): ModelStepRecord => ({
  step,
  ms: 1,
  finishReason: 'tool-calls',
  toolCalls: [{ toolCallId: `r${step}`, toolName: 'reply', input }],
  toolResults: [],
});

function judgeInput(loop: LoopOutcome, overrides: Partial<JudgeInput> = {}): JudgeInput {
  return {
    inbound: {
      tenantId: config.tenantId,
      channel: 'manychat',
      contactId: '77',
      messageKey: 'k:j',
      text: 'tag me',
      contact: { fields: {} },
      receivedAt: new Date().toISOString(),
    },
    config,
    history: [{ role: 'agent', text: 'Want updates?', at: new Date().toISOString() }],
    instructions: 'THE INSTRUCTIONS',
    loop,
    staged,
    inHandoffUntil: null,
    ...overrides,
  };
}

const replied: LoopOutcome = { kind: 'reply', reply: modelReply, modelReply, steps: [stagingStep(1, staged)] };

describe('judgeTurn: nothing to judge', () => {
  it('a contact with a human is not judged, and no guardrail runs', async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    const out = await judgeTurn(
      [g.guardrail],
      judgeInput(
        { kind: 'no-reply', why: 'contact is with a human', steps: [] },
        { inHandoffUntil: new Date(Date.now() + 60_000).toISOString() },
      ),
    );
    expect(out).toEqual({ judged: null, ms: 0, staged, notes: [] });
    expect(g.seen).toHaveLength(0);
  });

  it('a loop that errored is not judged (the decision falls back without the model output), and no guardrail runs', async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    const out = await judgeTurn(
      [g.guardrail],
      judgeInput({ kind: 'error', why: 'model down', aborted: false, steps: [] }),
    );
    expect(out).toEqual({ judged: null, ms: 0, staged, notes: [] });
    expect(g.seen).toHaveLength(0);
  });
});

describe('judgeTurn: every guardrail sees the finished turn', () => {
  it('a reply: the parsed reply, the raw reply, the staged actions, steps, instructions and history', async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    const input = judgeInput(replied);
    const out = await judgeTurn([g.guardrail], input);
    expect(out.judged).toMatchObject({
      outcome: 'pass',
      reason: 'every guardrail passed',
      verdicts: [{ guardrail: 'g', outcome: 'pass' }],
    });
    expect(g.seen).toHaveLength(1);
    // The guardrails see the turn as it will be decided: with the judge's taps (here: "tag me" names no tag).
    expect(g.seen[0]).toEqual({
      inbound: input.inbound,
      rawReply: modelReply,
      reply: modelReply,
      staged: out.staged,
      steps: replied.steps,
      config,
      instructions: 'THE INSTRUCTIONS',
      history: input.history,
    });
  });

  it("a write the contact's words cannot be tied to gets the contact's tap (confirm), one the message asks for keeps its gate", async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    const vague = await judgeTurn([g.guardrail], judgeInput(replied));
    // The id comes from the shared test helper's counter, which other files in the same run advance.
    const id = staged[0]!.id;
    expect(vague.staged.map((a) => [a.id, a.gate])).toEqual([[id, 'confirm']]);
    expect(vague.notes).toHaveLength(1);
    expect(vague.notes[0]!.startsWith(`${id}: `)).toBe(true);
    const asked = await judgeTurn(
      [g.guardrail],
      judgeInput(replied, { inbound: { ...judgeInput(replied).inbound, text: 'please tag me as interested' } }),
    );
    expect(asked.staged.map((a) => [a.id, a.gate])).toEqual([[id, 'none']]);
    expect(asked.notes).toEqual([]);
  });

  it('no reply: reply is null and the raw reply is the input of the last reply call (for the schema verdict)', async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    await judgeTurn(
      [g.guardrail],
      judgeInput({
        kind: 'no-reply',
        why: 'bad',
        steps: [replyStep(1, { text: 'first' }), replyStep(2, { text: 'second' })],
      }),
    );
    await judgeTurn(
      [g.guardrail],
      judgeInput({ kind: 'no-reply', why: 'bad', steps: [replyStep(1, { text: 'only' }), stagingStep(2, staged)] }),
    );
    await judgeTurn([g.guardrail], judgeInput({ kind: 'no-reply', why: 'none', steps: [stagingStep(1, staged)] }));
    expect(g.seen.map((s) => [s.reply, s.rawReply])).toEqual([
      [null, { text: 'second' }],
      [null, { text: 'only' }],
      [null, null],
    ]);
  });

  it('of several reply calls in one step, the last is the raw reply', async () => {
    const g = recording('g', { outcome: 'pass', reason: 'ok' });
    const step: ModelStepRecord = {
      ...replyStep(1, { text: 'a' }),
      toolCalls: [
        { toolCallId: 'x', toolName: 'reply', input: { text: 'a' } },
        { toolCallId: 'y', toolName: 'reply', input: { text: 'b' } },
      ],
    };
    await judgeTurn([g.guardrail], judgeInput({ kind: 'no-reply', why: 'bad', steps: [step] }));
    expect(g.seen[0]?.rawReply).toEqual({ text: 'b' });
  });

  it('combines verdicts: any escalate wins over a veto, and the deciding guardrail is named', async () => {
    const veto = recording('content', { outcome: 'veto', reason: 'card number' });
    const esc = recording('confidence', { outcome: 'escalate', reason: 'low' });
    const pass = recording('fine', { outcome: 'pass', reason: 'ok' });
    expect((await judgeTurn([pass.guardrail, veto.guardrail], judgeInput(replied))).judged).toMatchObject({
      outcome: 'veto',
      reason: 'content: card number',
    });
    expect(
      (await judgeTurn([veto.guardrail, esc.guardrail, pass.guardrail], judgeInput(replied))).judged,
    ).toMatchObject({ outcome: 'escalate', reason: 'confidence: low' });
  });

  it("a guardrail slower than the tenant's guardrailTimeoutMs escalates (fail closed)", async () => {
    const slow = recording('slow', () => new Promise<GuardrailResult>(() => {}));
    const quick = { ...config, thresholds: { ...config.thresholds, guardrailTimeoutMs: 30 } };
    const out = await judgeTurn([slow.guardrail], judgeInput(replied, { config: quick }));
    expect(out.judged).toMatchObject({
      outcome: 'escalate',
      reason: 'slow: guardrail did not finish within 30 ms (fail closed)',
    });
  });
});
