import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../core/security/digest.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { canaryLine, plantedCanaries } from '../../guardrails/canary.js';
import { TurnStaging } from '../../tools/staging.js';
import { reply, scriptedModel, type ScriptedStep } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageContext, stageDeps } from '../../test/support/turn-stage.js';
import type { TurnContext } from './turn-context.js';
import { modelBudgetMs, runTurnLoop } from './turn-loop.js';
import { FIXED_PROMPT_TOKENS } from '../../tools/menu-cost.js';

describe('modelBudgetMs: the model gets the window minus a reserve for guardrails and the commit', () => {
  const ctx = (startedAt: number, windowMs: number) => ({ startedAt, deadlineAt: startedAt + windowMs });

  it('the reserve is 15% of the turn window', () => {
    expect(modelBudgetMs(ctx(0, 8000), 0)).toBe(8000 - 1200);
    expect(modelBudgetMs(ctx(0, 1000), 0)).toBe(1000 - 150);
  });

  it('rounded to the nearest ms', () => {
    expect(modelBudgetMs(ctx(0, 8010), 0)).toBe(8010 - 1202); // 15% = 1201.5
  });

  it('capped at 1.5 s for long windows', () => {
    expect(modelBudgetMs(ctx(0, 10_000), 0)).toBe(10_000 - 1500);
    expect(modelBudgetMs(ctx(0, 35_000), 0)).toBe(35_000 - 1500);
  });

  it('counts from now, and the window from the turn start, not from zero', () => {
    expect(modelBudgetMs(ctx(2000, 8000), 2000)).toBe(8000 - 1200);
    expect(modelBudgetMs(ctx(2000, 8000), 5000)).toBe(8000 - 1200 - 3000);
  });

  it('is never negative: inside the reserve or past the deadline the budget is 0', () => {
    expect(modelBudgetMs(ctx(0, 8000), 7000)).toBe(0);
    expect(modelBudgetMs(ctx(0, 8000), 20_000)).toBe(0);
  });
});

async function loopWith(
  script: ScriptedStep[],
  configure: (config: TenantConfig) => TenantConfig = (c) => c,
  ctxOverrides: Partial<TurnContext> = {},
) {
  const config = configure(stageConfig());
  const model = scriptedModel(script);
  const inbound = inboundFor(config, 'brochure please');
  const ctx = stageContext(config, inbound, ctxOverrides);
  const staging = new TurnStaging(ctx.turnId);
  const notes: string[] = [];
  const result = await runTurnLoop(stageDeps({ model }), ctx, staging, notes);
  return { result, model, staging, notes, ctx };
}

const brochure: ScriptedStep = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here it comes.'),
};

describe('runTurnLoop: the loop stage', () => {
  it('runs the model with the system text it returns (instructions first, the canary last of all) and the staged actions land in staging', async () => {
    const { result, model, staging } = await loopWith([brochure]);
    expect(result.loop).toMatchObject({ kind: 'reply', reply: { text: 'Here it comes.' } });
    expect(model.doGenerateCalls).toHaveLength(1);
    const prompt = model.doGenerateCalls[0]!.prompt;
    const [canary] = plantedCanaries(result.instructions);
    expect(canary).toMatch(/^[0-9a-f]{16}$/);
    expect(prompt.at(-1)).toEqual({ role: 'system', content: canaryLine(`sa-canary-${canary}`) });
    expect(prompt[0]!.role).toBe('system');
    expect(`${prompt[0]!.content as string}\n\n${canaryLine(`sa-canary-${canary}`)}`).toBe(result.instructions);
    expect(prompt[0]!.content).not.toContain('sa-canary-');
    expect(staging.actions.map((a) => [a.kind, a.args.flowName])).toEqual([['send_flow', 'brochure']]);
    expect(result.modelMs).toBeGreaterThanOrEqual(0);
  });

  it('a fresh canary every turn', async () => {
    const a = await loopWith([brochure]);
    const b = await loopWith([brochure]);
    expect(plantedCanaries(a.result.instructions)).not.toEqual(plantedCanaries(b.result.instructions));
  });

  it("sends the conversation so far and the message as the model's messages", async () => {
    const at = new Date().toISOString();
    const { model } = await loopWith([brochure], undefined, {
      history: [
        { role: 'contact', text: 'earlier', at },
        { role: 'agent', text: 'earlier answer', at },
      ],
    });
    const roles = model.doGenerateCalls[0]!.prompt.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'system']);
    expect(JSON.stringify(model.doGenerateCalls[0]!.prompt.at(-2))).toContain('brochure please');
  });

  it('passes OpenAI a safety identifier that is a hash of tenant and contact, never the contact id', async () => {
    const { model, ctx } = await loopWith([brochure]);
    const id = (model.doGenerateCalls[0]!.providerOptions as { openai: { safetyIdentifier: string } }).openai
      .safetyIdentifier;
    expect(id).toBe((await sha256Hex(`${ctx.config.tenantId}:${ctx.inbound.contactId}`)).slice(0, 32));
    expect(id).not.toContain(ctx.inbound.contactId);
  });

  it('notes the tools that could not be registered, and still runs', async () => {
    const { result, notes } = await loopWith([brochure], (c) => ({
      ...c,
      tools: [...c.tools, { name: 'ghost_tool', kind: 'add_tag', description: 'not declared' }],
    }));
    expect(result.loop.kind).toBe('reply');
    expect(notes.join('\n')).toContain('tool "ghost_tool" is not declared');
  });
});

describe('runTurnLoop: no model call when it must not or cannot run', () => {
  it('a contact with a human gets no model call at all: no-reply, naming the handoff, no instructions', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const { result, model, staging } = await loopWith([brochure], undefined, { inHandoffUntil: until });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(result.loop).toEqual({ kind: 'no-reply', why: `contact is with a human until ${until}`, steps: [] });
    expect(result.instructions).toBe('');
    expect(staging.actions).toEqual([]);
  });

  it('an invalid tool order (slipped past the save check) is an error outcome naming the configuration, not a throw', async () => {
    const { result, model } = await loopWith([brochure], (c) => ({ ...c, toolOrder: ['send_media', 'send_media'] }));
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(result.loop.kind).toBe('error');
    expect(result.loop.kind === 'error' && result.loop.why).toMatch(
      /^configuration error: invalid tool order: .*must contain "<unlisted-tools>" exactly once/,
    );
  });

  it('a tool builder that throws is an error outcome, not a throw', async () => {
    const { result, model } = await loopWith([brochure], (c) => ({
      ...c,
      tools: [
        ...c.tools,
        {
          name: 'say_it',
          kind: 'live_chat' as TenantConfig['tools'][number]['kind'],
          description: 'no staging tool for this kind',
        },
      ],
      manifest: { ...c.manifest, say_it: { effect: 'write', confirm: 'never' } },
    }));
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(result.loop).toMatchObject({ kind: 'error', aborted: false });
    expect(result.loop.kind === 'error' && result.loop.why).toContain('turn failed before the model answered');
  });

  it("a model slower than the turn's budget is aborted: an error outcome marked aborted", async () => {
    const startedAt = performance.now();
    const { result } = await loopWith([{ delayMs: 30_000, ...brochure }], undefined, {
      startedAt,
      deadlineAt: startedAt + 600,
    });
    expect(result.loop).toMatchObject({
      kind: 'error',
      aborted: true,
      why: 'the model did not answer before the deadline',
    });
  });
});

describe('runTurnLoop: hedged model calls stay one step and stage only the winner', () => {
  const hedgeSoon = (c: TenantConfig): TenantConfig => ({
    ...c,
    hedging: { enabled: true, afterMs: 30, freshCallMs: 3500, maxPerMinute: 10_000 },
  });

  it("a pair whose calls would stage differently: only the winner's tool calls run, so only its action is staged", async () => {
    // The primary (slow) would send the studio tour; its hedge (fast) sends the timetable.
    const racing: ScriptedStep = {
      calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }],
      hedgeCalls: [{ tool: 'send_media', input: { flow: 'timetable' } }],
      reply: reply('Here it comes.'),
      delayMs: 2000,
      hedgeDelayMs: 5,
    };
    const { result, model, staging } = await loopWith([racing], hedgeSoon);
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(staging.actions.map((a) => a.args.flowName)).toEqual(['timetable']);
    expect(result.loop.steps).toHaveLength(1);
    expect(result.loop.steps[0]!.hedge).toMatchObject({ afterMs: 30, winner: 'hedge', primaryAborted: true });
    expect(result.loop.steps[0]!.toolCalls.map((c) => c.toolCallId)).toEqual(['call_0h_0', 'call_0h_1']);

    // And the other way round: the primary answers first, the hedge's action never exists.
    const slowHedge: ScriptedStep = { ...racing, delayMs: 80, hedgeDelayMs: 2000 };
    const other = await loopWith([slowHedge], hedgeSoon);
    expect(other.staging.actions.map((a) => a.args.flowName)).toEqual(['studio_tour']);
    expect(other.result.loop.steps[0]!.hedge).toMatchObject({ winner: 'primary', hedgeAborted: true });
  });

  it('the loop bound counts a hedged pair as one step: two hedged steps are two steps, and no third call is made', async () => {
    const read: ScriptedStep = { calls: [{ tool: 'lookup_contact', input: {} }], delayMs: 2000, hedgeDelayMs: 5 };
    const readAgain: ScriptedStep = { calls: [{ tool: 'lookup_contact', input: {} }], delayMs: 2000, hedgeDelayMs: 5 };
    const { result, model } = await loopWith([read, readAgain], hedgeSoon);
    expect(result.loop.steps).toHaveLength(2);
    expect(result.loop.steps.every((s) => s.hedge?.winner === 'hedge')).toBe(true);
    expect(model.doGenerateCalls).toHaveLength(4);
    expect(result.loop.kind).toBe('no-reply');
  });

  // Deadline-aware hedging (src/models/hedge-timing.ts): afterMs is the latest; a call that starts
  // with less than afterMs + freshCallMs before the webhook must answer is hedged sooner.
  const nearTheAnswer = (c: TenantConfig): TenantConfig => ({
    ...c,
    deadlineMs: 8000,
    hedging: { enabled: true, afterMs: 9000, freshCallMs: 7000, maxPerMinute: 10_000 },
  });
  const slowPrimary: ScriptedStep = { ...brochure, delayMs: 1500, hedgeDelayMs: 5 };

  it('a live turn whose answer is due in less than afterMs + freshCallMs: hedged at what is left minus freshCallMs', async () => {
    // 7,750 ms left at the start (8,000 − the response margin): hedged after about 750 ms, not 9,000.
    const { result, model } = await loopWith([slowPrimary], nearTheAnswer);
    expect(model.doGenerateCalls).toHaveLength(2);
    const hedge = result.loop.steps[0]!.hedge!;
    expect(hedge.winner).toBe('hedge');
    expect(hedge.afterMs).toBeGreaterThanOrEqual(500);
    expect(hedge.afterMs).toBeLessThanOrEqual(750);
  });

  it('nobody waiting for the answer (a deferred turn): the tenant afterMs, so the same call is not hedged', async () => {
    const { result, model } = await loopWith([slowPrimary], nearTheAnswer, {
      deferral: { deferred: true, committing: false },
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(result.loop.steps[0]!.hedge).toBeUndefined();
    expect(result.loop).toMatchObject({ kind: 'reply' });
  });

  it('hedging off: a slow call is awaited alone', async () => {
    const slow: ScriptedStep = { ...brochure, delayMs: 120, hedgeDelayMs: 5 };
    const { result, model } = await loopWith([slow], (c) => ({
      ...c,
      hedging: { enabled: false, afterMs: 30, freshCallMs: 3500, maxPerMinute: 10_000 },
    }));
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(result.loop.steps[0]!.hedge).toBeUndefined();
  });
});

describe('runTurnLoop: the tool shortlist (issue 21)', () => {
  const small = (c: TenantConfig): TenantConfig => ({ ...c, shortlist: { maxToolTokens: 1 } });
  const toolNames = (call: { tools?: readonly { name: string }[] | undefined }) =>
    (call.tools ?? []).map((t) => t.name);
  const descriptionOf = (
    call: { tools?: readonly { name: string; description?: string }[] | undefined },
    name: string,
  ) => call.tools?.find((t) => t.name === name)?.description ?? '';

  it('off under the default size: every tool offered, no shortlist in the result', async () => {
    const { result, model } = await loopWith([brochure]);
    expect(result.shortlist).toBeUndefined();
    expect(toolNames(model.doGenerateCalls[0]! as never)).toContain('untag_contact');
  });

  it('on past the tenant size: offers what the words match (and reply), records what it dropped and why', async () => {
    const { result, model } = await loopWith([brochure], small);
    expect(result.loop).toMatchObject({ kind: 'reply' });
    expect(result.shortlist?.offered).toContain('send_media');
    expect(result.shortlist?.offered).toContain('reply');
    expect(result.shortlist?.offered).not.toContain('untag_contact');
    expect(result.shortlist?.resources['send_media']).toEqual(['flow:brochure']);
    expect(result.shortlist?.dropped).toContain(
      'flow:studio_tour (tool send_media): no word of the message or recent history matches it',
    );
    expect(result.shortlist?.widened).toBe(false);
    const call = model.doGenerateCalls[0]! as never;
    expect(toolNames(call)).toEqual(result.shortlist?.offered);
    expect(descriptionOf(call, 'send_media')).not.toContain('studio_tour');
  });

  it('a write naming a dropped resource is refused (nothing staged), and step 2 is offered the full menu once', async () => {
    const tour: ScriptedStep = { calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }] };
    const { result, model, staging, notes } = await loopWith(
      [tour, { calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }], reply: reply('Here is the tour.') }],
      small,
    );
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(result.loop.steps[0]!.toolResults[0]!.status).not.toBe('staged');
    // The refusal names what is in scope on this turn (the shortlist's flows), as any refusal does.
    const refusal = result.loop.steps[0]!.toolResults[0]!;
    expect(refusal.status).toBe('denied');
    expect((refusal.output as { content: string }).content).toMatch(/allowed flows: brochure\.?$/i);
    expect(descriptionOf(model.doGenerateCalls[0]! as never, 'send_media')).not.toContain('studio_tour');
    expect(descriptionOf(model.doGenerateCalls[1]! as never, 'send_media')).toContain('studio_tour');
    expect(toolNames(model.doGenerateCalls[1]! as never)).toContain('untag_contact');
    expect(result.shortlist?.widened).toBe(true);
    expect(notes).toContain('tool shortlist widened: step 2 offered the full tool menu after a refusal');
    expect(staging.actions.map((a) => a.args)).toMatchObject([{ flowName: 'studio_tour' }]);
  });
  const systemOf = (call: { prompt: readonly { role: string; content: unknown }[] }) => String(call.prompt[0]!.content);
  const FAQ_GUIDANCE = 'Search the FAQ before answering questions about the studio.';
  const MEDIA_GUIDANCE = 'Offer media only when it answers what the contact asked.';

  it("the guidance sent matches the tools offered: a dropped tool's guidance is not sent, and after widening step 2 reads it", async () => {
    const tour: ScriptedStep = { calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }] };
    const { result, model } = await loopWith(
      [tour, { calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }], reply: reply('Here is the tour.') }],
      small,
    );
    const [first, second] = model.doGenerateCalls.map((c) => systemOf(c as never));
    expect(first).toContain(MEDIA_GUIDANCE);
    expect(first).not.toContain(FAQ_GUIDANCE);
    expect(first).not.toContain('- search_faq [');
    expect(second).toContain(MEDIA_GUIDANCE);
    expect(second).toContain(FAQ_GUIDANCE);
    expect(second).toContain('- search_faq [');
    // The leak guardrail compares the reply with what the model read last: the widened instructions.
    expect(result.instructions.startsWith(second!)).toBe(true);
  });

  it('a call to a tool the shortlist left off entirely comes back an error, and step 2 is offered that tool with its guidance', async () => {
    const { result, model, notes } = await loopWith(
      [
        { calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }] },
        { calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }], reply: reply('We open at 7.') },
      ],
      small,
    );
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(toolNames(model.doGenerateCalls[0]! as never)).not.toContain('search_faq');
    expect(result.loop.steps[0]!.toolResults[0]).toMatchObject({ toolName: 'search_faq', status: 'error' });
    expect(toolNames(model.doGenerateCalls[1]! as never)).toContain('search_faq');
    expect(systemOf(model.doGenerateCalls[1]! as never)).toContain(FAQ_GUIDANCE);
    expect(result.loop.steps[1]!.toolResults[0]).toMatchObject({ toolName: 'search_faq', status: 'ok' });
    expect(result.shortlist?.widened).toBe(true);
    expect(notes).toContain('tool shortlist widened: step 2 offered the full tool menu after a refusal');
  });

  it("without a refusal nothing widens: both calls read the shortlist's instructions", async () => {
    const { model } = await loopWith(
      [
        {
          calls: [
            { tool: 'lookup_contact', input: {} },
            { tool: 'send_media', input: { flow: 'brochure' } },
          ],
        },
        { reply: reply('Sent.') },
      ],
      (c) => ({ ...small(c), manifest: { ...c.manifest, lookup_contact: { effect: 'read', pinned: true } } }),
    );
    expect(model.doGenerateCalls).toHaveLength(2);
    const [first, second] = model.doGenerateCalls.map((c) => systemOf(c as never));
    expect(second).toBe(first);
    expect(second).not.toContain(FAQ_GUIDANCE);
  });
});

describe("the shortlist's cost rule reads the real prompt (tools/menu-cost.ts)", () => {
  it('FIXED_PROMPT_TOKENS is what a request carries with no persona and no tools: the rules and the reply tool (characters / 4, within 15 %)', async () => {
    const bare = (c: TenantConfig): TenantConfig => ({
      ...c,
      persona: '',
      tools: [],
      manifest: {},
      toolOrder: undefined,
    });
    const { model } = await loopWith([{ reply: reply('Hi.') }], bare);
    const call = model.doGenerateCalls[0]!;
    const system = call.prompt.find((m) => m.role === 'system')!.content as string;
    const tokens = (JSON.stringify(call.tools ?? []).length + system.length) / 4;
    expect(call.tools?.map((t) => t.name)).toEqual(['reply']);
    expect(FIXED_PROMPT_TOKENS).toBeGreaterThan(tokens * 0.85);
    expect(FIXED_PROMPT_TOKENS).toBeLessThan(tokens * 1.15);
  });
});
