import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { registerTelemetry, tool, type Tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolDeclaration } from '../../core/tenant/manifest.js';
import { envelope } from '../../core/tool-envelope.js';
import { replyTool, type TurnToolset } from '../../tools/registry.js';
import { reply, scriptedModel, type ScriptedStep } from '../../test/support/scripted-model.js';
import { MAX_MODEL_STEPS, runModelLoop } from './model-loop.js';

/**
 * The bounded loop on its own, with hand-made tools whose results are exactly the status under
 * test (staged, ok, denied, plain, thrown). The scripted model always has more to say than the
 * loop should ask for, so every count below is the product's bound, not the script's length.
 */
const noInput = z.object({});
const tools: Record<string, Tool> = {
  stage_it: tool({
    inputSchema: noInput,
    execute: async () => envelope.staged('Staged, not done: x.', [{ actionId: 'a1', kind: 'add_tag', summary: 'x' }]),
  }),
  read_it: tool({ inputSchema: noInput, execute: async () => envelope.ok('<untrusted-data>42</untrusted-data>') }),
  refuse_it: tool({ inputSchema: noInput, execute: async () => envelope.denied('not allowed; allowed: a, b') }),
  plain_it: tool({ inputSchema: noInput, execute: async () => 'just text' }),
  near_miss: tool({ inputSchema: noInput, execute: async () => ({ status: 'staged', content: 'looks staged' }) }),
  throw_it: tool({
    inputSchema: noInput,
    execute: async (): Promise<string> => {
      throw new Error('tool broke');
    },
  }),
  faq: tool({ inputSchema: noInput, execute: async () => envelope.ok('We open at 7.') }),
  faq_plain: tool({ inputSchema: noInput, execute: async () => 'No FAQ entry matches.' }),
};
const declarations: Record<string, ToolDeclaration> = {
  faq: { effect: 'read', answers_directly: true },
  faq_plain: { effect: 'read', answers_directly: true },
};
const toolset: TurnToolset = {
  tools: { ...tools, reply: replyTool() },
  order: [...Object.keys(tools), 'reply'].sort(),
  declarations,
  refused: [],
};

const call = (name: string) => ({ tool: name, input: {} });
const endless: ScriptedStep[] = [1, 2, 3, 4].map(() => ({ calls: [call('read_it')] }));

async function run(script: ScriptedStep[], signal = new AbortController().signal) {
  const model = scriptedModel(script);
  const notes: string[] = [];
  const outcome = await runModelLoop({
    model,
    instructions: 'INSTRUCTIONS',
    messages: [{ role: 'user', content: 'hi' }],
    toolset,
    abortSignal: signal,
    notes,
  });
  return { outcome, calls: model.doGenerateCalls, notes };
}

/** The tool results the model is shown for `toolCallId` in a later call's prompt. */
function resultsFor(prompt: LanguageModelV4Prompt, toolCallId: string) {
  return prompt.flatMap((m) =>
    m.role === 'tool' ? m.content.filter((c) => c.type === 'tool-result' && c.toolCallId === toolCallId) : [],
  );
}

describe('runModelLoop: one call when nothing needs the model again', () => {
  it('staging calls that all staged plus a valid reply end the turn after one call', async () => {
    const { outcome, calls } = await run([
      { calls: [call('stage_it'), call('stage_it')], reply: reply('On its way.') },
      ...endless,
    ]);
    expect(calls).toHaveLength(1);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'On its way.' } });
    expect(outcome.steps.map((s) => s.toolResults.map((r) => r.status))).toEqual([['staged', 'staged']]);
  });

  it('a reply alone ends the turn after one call', async () => {
    const { outcome, calls } = await run([{ reply: reply('Hello!') }, ...endless]);
    expect(calls).toHaveLength(1);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'Hello!' } });
  });

  it('every call offers the tools in the canonical order and requires a tool call', async () => {
    const { calls } = await run([{ calls: [call('read_it')], reply: reply('a') }, { reply: reply('b') }]);
    for (const c of calls) {
      expect(c.tools?.map((t) => t.name)).toEqual(toolset.order);
      expect(c.toolChoice).toEqual({ type: 'required' });
    }
  });
});

describe('runModelLoop: a result the model must see forces the second call', () => {
  for (const [name, status] of [
    ['read_it', 'ok'],
    ['refuse_it', 'denied'],
    ['plain_it', 'plain'],
    ['throw_it', 'error'],
  ] as const) {
    it(`a ${status} result (${name}) beside a valid reply: the reply is not sent, the second call's reply is`, async () => {
      const { outcome, calls } = await run([
        { calls: [call('stage_it'), call(name)], reply: reply('premature') },
        { reply: reply('after seeing it') },
        ...endless,
      ]);
      expect(calls).toHaveLength(2);
      expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'after seeing it' } });
      expect(outcome.steps[0]!.toolResults.find((r) => r.toolName === name)?.status).toBe(status);
    });
  }

  it('a status-bearing object that is not an envelope is plain content, not "staged", and is noted', async () => {
    const { outcome, calls, notes } = await run([
      { calls: [call('near_miss')], reply: reply('premature') },
      { reply: reply('second') },
    ]);
    expect(calls).toHaveLength(2);
    expect(outcome.steps[0]!.toolResults[0]?.status).toBe('plain');
    expect(notes.join('\n')).toContain('tool near_miss returned a status-bearing object that is not an envelope');
  });

  it('the model then sees every result, and the held-back reply gets a "Not sent" result of its own', async () => {
    const { calls } = await run([{ calls: [call('read_it')], reply: reply('premature') }, { reply: reply('second') }]);
    const second = calls[1]!.prompt;
    expect(resultsFor(second, 'call_0_0')).toHaveLength(1);
    const held = resultsFor(second, 'call_0_1');
    expect(held).toHaveLength(1);
    expect(JSON.stringify(held[0])).toContain('Not sent: another tool call in this step needs your attention');
  });

  it('an invalid reply gets a second call; its schema error is its one result (no duplicate "Not sent")', async () => {
    const { outcome, calls } = await run([
      { calls: [call('stage_it')], reply: { text: 'x', escalate: false, confidence: 7, reason: 'r' } },
      { reply: reply('valid now') },
    ]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'valid now' } });
    const results = resultsFor(calls[1]!.prompt, 'call_0_1');
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0])).toContain('confidence');
  });

  it('no reply at all in the first call gets a second call', async () => {
    const { outcome, calls } = await run([{ calls: [call('stage_it')] }, { reply: reply('done') }]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'done' } });
  });
});

describe(`runModelLoop: never more than ${MAX_MODEL_STEPS} calls`, () => {
  it('the bound is two', () => expect(MAX_MODEL_STEPS).toBe(2));

  it('a model that never replies is stopped after the second call: no-reply, no third call', async () => {
    const { outcome, calls } = await run(endless);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'no-reply', why: 'the model made 2 calls without a reply' });
    expect(outcome.steps).toHaveLength(2);
  });

  it('on the last call a valid reply stands even beside a result that would need another look', async () => {
    const { outcome, calls } = await run([
      { calls: [call('read_it')] },
      { calls: [call('read_it')], reply: reply('final') },
      ...endless,
    ]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'final' } });
  });

  it('a reply invalid on both calls is no-reply, naming the schema problem', async () => {
    const bad = { text: 'x', escalate: 'yes', confidence: 0.5, reason: 'r' };
    const { outcome, calls } = await run([{ reply: bad }, { reply: bad }, ...endless]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'no-reply', why: 'the reply did not match its schema' });
  });
});

describe('runModelLoop: several reply calls in one step', () => {
  it('an escalation in any of them stands, and the lowest confidence counts (fail closed): a later reply cannot drop them', async () => {
    const { outcome, calls } = await run([
      {
        calls: [
          call('stage_it'),
          { tool: 'reply', input: reply('Getting a teammate.', { escalate: true, confidence: 0.95 }) },
        ],
        reply: reply('Here it is!', { escalate: false, confidence: 0.9 }),
      },
      ...endless,
    ]);
    expect(calls).toHaveLength(1);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'Here it is!', escalate: true, confidence: 0.9 } });
  });

  it('an escalation held back for a second step (a read beside it) stands when step 2 replies without one', async () => {
    const { outcome, calls } = await run([
      { calls: [call('read_it')], reply: reply('Getting a teammate.', { escalate: true, confidence: 0.3 }) },
      { calls: [call('stage_it')], reply: reply('Here it is!', { confidence: 0.9 }) },
      ...endless,
    ]);
    expect(calls).toHaveLength(2);
    // The held-back text and confidence were written before the model saw the read: only the escalation carries over.
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'Here it is!', escalate: true, confidence: 0.9 } });
  });

  it('a held-back reply without an escalation changes nothing in step 2', async () => {
    const { outcome } = await run([
      { calls: [call('read_it')], reply: reply('premature') },
      { reply: reply('after seeing it') },
      ...endless,
    ]);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'after seeing it', escalate: false } });
  });

  it('a low confidence in the first is not overruled by a confident second', async () => {
    const { outcome } = await run([
      {
        calls: [{ tool: 'reply', input: reply('Unsure.', { confidence: 0.2 }) }],
        reply: reply('Sure!', { confidence: 0.99 }),
      },
      ...endless,
    ]);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'Sure!', escalate: false, confidence: 0.2 } });
  });
});

describe('runModelLoop: a tool that answers directly', () => {
  it('an answers_directly tool that came back ok is the reply, after one call, even without a reply call', async () => {
    const { outcome, calls } = await run([{ calls: [call('faq')] }, ...endless]);
    expect(calls).toHaveLength(1);
    expect(outcome).toMatchObject({
      kind: 'reply',
      reply: { text: 'We open at 7.', escalate: false, confidence: 1, reason: 'answered directly by faq' },
      modelReply: null,
    });
  });

  it('not when something was staged beside it: the model writes the answer', async () => {
    const { outcome, calls } = await run([{ calls: [call('faq'), call('stage_it')] }, { reply: reply('composed') }]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'composed' } });
  });

  it('not when another call of the step needs the model (a read or a refusal beside it)', async () => {
    for (const other of ['read_it', 'refuse_it']) {
      const { outcome, calls } = await run([{ calls: [call('faq'), call(other)] }, { reply: reply('composed') }]);
      expect(calls).toHaveLength(2);
      expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'composed' } });
    }
  });

  it('not when its output is plain content (no match): the model must answer', async () => {
    const { outcome, calls } = await run([{ calls: [call('faq_plain')] }, { reply: reply('composed') }]);
    expect(calls).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { text: 'composed' } });
  });

  it("not when the step's reply failed its schema (a malformed request for a human): step 2 answers, the FAQ text is never sent with confidence 1", async () => {
    const bad = [
      { text: 'Let me get a person.', escalate: 'true', confidence: 0.9, reason: 'asks for a human' },
      { text: 'Let me get a person.', escalate: true, confidence: 1.5, reason: 'asks for a human' },
    ];
    for (const malformed of bad) {
      const { outcome, calls } = await run([
        { calls: [call('faq')], reply: malformed },
        { reply: reply('A person will answer.', { escalate: true, confidence: 0.4 }) },
      ]);
      expect(calls).toHaveLength(2);
      expect(outcome).toMatchObject({
        kind: 'reply',
        reply: { text: 'A person will answer.', escalate: true, confidence: 0.4 },
      });
    }
  });

  it('and when step 2 gives no valid reply either, the turn has no reply (fails closed), never the FAQ text', async () => {
    const malformed = { text: 'x', escalate: 'true', confidence: 0.9, reason: 'r' };
    const { outcome } = await run([{ calls: [call('faq')], reply: malformed }, { reply: malformed }]);
    expect(outcome.kind).toBe('no-reply');
  });

  it('not for an ok result of a tool that is not declared answers_directly', async () => {
    const { calls } = await run([{ calls: [call('read_it')] }, { reply: reply('composed') }]);
    expect(calls).toHaveLength(2);
  });
});

describe('runModelLoop: failures are outcomes, never throws', () => {
  it('a failing model call is an error outcome with its message; steps done so far are kept', async () => {
    const { outcome, calls } = await run([{ calls: [call('read_it')] }, { error: 'provider said 500' }]);
    expect(calls).toHaveLength(2);
    expect(outcome.kind).toBe('error');
    expect(outcome).toMatchObject({ aborted: false });
    expect(outcome.kind === 'error' && outcome.why).toContain('provider said 500');
    expect(outcome.steps).toHaveLength(1);
  });

  it('an abort (the turn deadline) is an error outcome marked aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('turn deadline')), 50);
    const { outcome } = await run([{ delayMs: 30_000, reply: reply('too late') }], controller.signal);
    expect(outcome).toMatchObject({
      kind: 'error',
      aborted: true,
      why: 'the model did not answer before the deadline',
      steps: [],
    });
  });
});

describe("runModelLoop: the AI SDK's own telemetry stays off", () => {
  it('an integration registered in the isolate sees no call, no tool and no contact text', async () => {
    const global = globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] };
    const before = global.AI_SDK_TELEMETRY_INTEGRATIONS;
    const seen: string[] = [];
    const spy = (name: string) => (event: unknown) => void seen.push(`${name}: ${JSON.stringify(event)}`);
    registerTelemetry({
      onStart: spy('onStart'),
      onLanguageModelCallStart: spy('onLanguageModelCallStart'),
      onToolExecutionStart: spy('onToolExecutionStart'),
      onEnd: spy('onEnd'),
      executeLanguageModelCall: async ({ execute }) => {
        seen.push('executeLanguageModelCall');
        return execute();
      },
    });
    try {
      const { outcome, calls } = await run([{ calls: [call('read_it')] }, { calls: [], reply: reply('Noted.') }]);
      expect(outcome.kind).toBe('reply');
      expect(calls).toHaveLength(2);
      expect(seen).toEqual([]);
    } finally {
      global.AI_SDK_TELEMETRY_INTEGRATIONS = before;
    }
  });
});
