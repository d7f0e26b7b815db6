import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { HedgeRecord } from '../core/turn-record.js';
import { hedgedModel } from '../src/models/hedged-model.js';
import { safetyIdentifierFor, startModelSandbox, UNSCRIPTED_REPLY, type ModelSandbox } from './model-sandbox.js';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => sandbox.reset());

const model = () => createOpenAI({ baseURL: sandbox.baseURL, apiKey: 'sandbox' }).chat('gpt-4.1-mini');

const tools = {
  send_media: tool({
    description: 'stage a flow',
    inputSchema: z.object({ flow: z.string() }),
    execute: async ({ flow }) => ({ staged: flow }),
  }),
  reply: tool({
    description: 'end the turn',
    inputSchema: z.object({ text: z.string(), escalate: z.boolean(), confidence: z.number(), reason: z.string() }),
  }),
};
const reply = { text: 'Here is the brochure.', escalate: false, confidence: 0.9, reason: 'asked for it' };

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('model sandbox with the real @ai-sdk/openai chat provider', () => {
  it('plays a scripted step: tool calls in the OpenAI wire format, finish_reason tool_calls, usage', async () => {
    const sid = safetyIdentifierFor('tenant-a', '42');
    expect(sid).toMatch(/^[0-9a-f]{32}$/);
    sandbox.script({
      safetyIdentifier: sid,
      steps: [{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply }],
    });

    const result = await generateText({
      model: model(),
      prompt: 'brochure please',
      tools,
      toolChoice: 'required',
      providerOptions: { openai: { safetyIdentifier: sid } },
    });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ['send_media', { flow: 'brochure' }],
      ['reply', reply],
    ]);
    // send_media executed (it has execute); reply has none and is handed back.
    expect(result.toolResults.map((r) => r.toolName)).toEqual(['send_media']);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);

    const [call] = sandbox.calls({ safetyIdentifier: sid });
    expect(call).toMatchObject({
      source: 'script',
      stepIndex: 0,
      status: 200,
      stream: false,
      aborted: false,
      model: 'gpt-4.1-mini',
      toolChoice: 'required',
    });
    expect(call!.toolNames).toEqual(['send_media', 'reply']);
    expect(JSON.stringify(call!.request)).toContain('brochure please');
    expect(sandbox.pending(sid)).toBe(0);
  });

  it('a hedged model (the real provider, wrapped) gets the same step again for its hedge, after the hedge latency; the next call gets the next step', async () => {
    const sid = safetyIdentifierFor('tenant-h', '7');
    sandbox.script({
      safetyIdentifier: sid,
      steps: [
        { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply, latencyMs: 3000, hedgeLatencyMs: 20 },
        { reply: { ...reply, text: 'second step' } },
      ],
    });
    const hedges: HedgeRecord[] = [];
    const hedged = hedgedModel(model() as LanguageModelV4, {
      afterMs: () => 50,
      mayHedge: () => true,
      onHedge: (h) => hedges.push(h),
    });
    const result = await generateText({
      model: hedged,
      prompt: 'brochure please',
      tools,
      toolChoice: 'required',
      providerOptions: { openai: { safetyIdentifier: sid } },
    });
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['send_media', 'reply']);
    expect(hedges).toMatchObject([{ winner: 'hedge', primaryAborted: true }]);
    // Both requests got step 0 (which arrived first varies under load: a hedge can overtake its call).
    const calls = sandbox.calls({ safetyIdentifier: sid });
    expect(calls.map((c) => [c.stepIndex, c.hedge]).sort()).toEqual([
      [0, false],
      [0, true],
    ]);
    expect(calls[1]!.request).toEqual(calls[0]!.request);
    await until(
      () => sandbox.calls({ safetyIdentifier: sid }).find((c) => !c.hedge)!.aborted,
      'the primary call to be recorded as aborted',
    );
    const next = await generateText({
      model: model(),
      prompt: 'again',
      tools,
      providerOptions: { openai: { safetyIdentifier: sid } },
    });
    expect(next.toolCalls.map((c) => (c.input as { text?: string }).text)).toEqual(['second step']);
  });

  it('a hedge that overtakes the call it races (same body, arriving first) still shares its step; a different body does not', async () => {
    const sid = safetyIdentifierFor('tenant-h', '8');
    sandbox.script({
      safetyIdentifier: sid,
      steps: [
        { reply: { ...reply, text: 'one' } },
        { reply: { ...reply, text: 'two' } },
        { reply: { ...reply, text: 'three' } },
      ],
    });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], safety_identifier: sid });
    const send = (b: string, hedge: boolean) =>
      fetch(`${sandbox.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(hedge ? { 'x-staged-agent-hedge': '1' } : {}) },
        body: b,
      });
    await (await send(body, true)).text();
    await (await send(body, false)).text();
    await (await send(body.replace('hi', 'hello'), false)).text();
    expect(sandbox.calls({ safetyIdentifier: sid }).map((c) => [c.stepIndex, c.hedge])).toEqual([
      [0, true],
      [0, false],
      [1, false],
    ]);
  });

  it('pops one step per call, in order, per safety identifier (a two-step loop)', async () => {
    const a = safetyIdentifierFor('t', '1');
    const b = safetyIdentifierFor('t', '2');
    sandbox.script({
      safetyIdentifier: a,
      steps: [{ calls: [{ tool: 'send_media', input: { flow: 'a1' } }] }, { reply: { ...reply, text: 'a2' } }],
    });
    sandbox.script({ safetyIdentifier: b, steps: [{ reply: { ...reply, text: 'b1' } }] });

    const b1 = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: b } },
    });
    const a1 = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: a } },
    });
    const a2 = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: a } },
    });

    expect(b1.toolCalls[0]?.input).toMatchObject({ text: 'b1' });
    expect(a1.toolCalls[0]?.input).toEqual({ flow: 'a1' });
    expect(a2.toolCalls[0]?.input).toMatchObject({ text: 'a2' });
    expect(sandbox.calls({ safetyIdentifier: a }).map((c) => c.stepIndex)).toEqual([0, 1]);
  });

  it('the second call of a loop carries the tool result of the first (what the product sends back)', async () => {
    const sid = safetyIdentifierFor('t', 'loop');
    sandbox.script({
      safetyIdentifier: sid,
      steps: [{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }] }, { reply }],
    });
    const result = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      stopWhen: ({ steps }) => steps.length >= 2,
      providerOptions: { openai: { safetyIdentifier: sid } },
    });
    expect(result.steps).toHaveLength(2);
    const second = sandbox.calls({ safetyIdentifier: sid })[1]!;
    expect(JSON.stringify(second.request?.messages)).toContain('"role":"tool"');
    expect(JSON.stringify(second.request?.messages)).toContain('staged');
  });

  it('with no step left answers a low-confidence reply call (documented), recorded as unscripted', async () => {
    const result = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: 'nobody' } },
    });
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['reply', UNSCRIPTED_REPLY]]);
    expect(sandbox.calls()[0]).toMatchObject({ source: 'unscripted', safetyIdentifier: 'nobody' });
  });

  it('a default script ("*") serves identifiers without a script; loop replays it', async () => {
    sandbox.script({ safetyIdentifier: '*', steps: [{ reply }], loop: true });
    for (let i = 0; i < 3; i++) {
      const r = await generateText({
        model: model(),
        prompt: 'x',
        tools,
        providerOptions: { openai: { safetyIdentifier: `id-${i}` } },
      });
      expect(r.toolCalls[0]?.input).toEqual(reply);
    }
    expect(sandbox.calls().map((c) => [c.source, c.stepIndex])).toEqual([
      ['default', 0],
      ['default', 1],
      ['default', 2],
    ]);
  });

  it('an error step answers in OpenAI error shape; the provider raises an APICallError with that status', async () => {
    const sid = 'err';
    sandbox.script({ safetyIdentifier: sid, steps: [{ error: { status: 503, message: 'overloaded, try later' } }] });
    const err = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      maxRetries: 0,
      providerOptions: { openai: { safetyIdentifier: sid } },
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect((err as APICallError).statusCode).toBe(503);
    expect((err as APICallError).message).toContain('overloaded, try later');
    expect(sandbox.calls()[0]).toMatchObject({ status: 503 });
  });

  it('plain text steps finish with stop', async () => {
    sandbox.script({ safetyIdentifier: 'txt', steps: [{ text: 'just words' }] });
    const r = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: 'txt' } },
    });
    expect(r.text).toBe('just words');
    expect(r.finishReason).toBe('stop');
    expect(r.toolCalls).toEqual([]);
  });

  it('honours latency', async () => {
    sandbox.script({ safetyIdentifier: 'slow', steps: [{ reply, latencyMs: 250 }] });
    const started = performance.now();
    await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: 'slow' } },
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(2000);
    expect(sandbox.calls()[0]!.servedMs).toBeGreaterThanOrEqual(240);
  });

  it('stops waiting when the client disconnects and records the call as aborted', async () => {
    sandbox.script({ safetyIdentifier: 'gone', steps: [{ reply, latencyMs: 30_000 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('deadline')), 150);
    const started = performance.now();
    const err = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      maxRetries: 0,
      abortSignal: controller.signal,
      providerOptions: { openai: { safetyIdentifier: 'gone' } },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(performance.now() - started).toBeLessThan(2000);
    await expect.poll(() => sandbox.calls()[0]?.aborted, { timeout: 2000 }).toBe(true);
    const call = sandbox.calls()[0]!;
    expect(call.status).toBe(0);
    expect(call.servedMs).toBeLessThan(2000);
  });

  it('streams SSE (stream: true): tool calls arrive in deltas and assemble to the same calls', async () => {
    const sid = 'stream';
    sandbox.script({
      safetyIdentifier: sid,
      steps: [{ calls: [{ tool: 'send_media', input: { flow: 'studio_tour' } }], reply, latencyMs: 200, ttftMs: 100 }],
    });
    const started = performance.now();
    const result = streamText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: sid } },
    });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ['send_media', { flow: 'studio_tour' }],
      ['reply', reply],
    ]);
    expect(await result.finishReason).toBe('tool-calls');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(sandbox.calls()[0]).toMatchObject({ stream: true, status: 200 });
  });

  it('streams plain text', async () => {
    sandbox.script({ safetyIdentifier: 'st', steps: [{ text: 'hello there, streaming friend' }] });
    const result = streamText({ model: model(), prompt: 'x', providerOptions: { openai: { safetyIdentifier: 'st' } } });
    expect(await result.text).toBe('hello there, streaming friend');
  });

  it('passes raw (malformed) arguments through, so invalid tool input can be scripted', async () => {
    sandbox.script({
      safetyIdentifier: 'raw',
      steps: [{ calls: [{ tool: 'reply', arguments: '{"text": "unterminated' }] }],
    });
    const r = await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: 'raw' } },
    });
    const part = r.content.find((p) => p.type === 'tool-call' || p.type === 'tool-error');
    expect(part).toBeDefined();
    expect(JSON.stringify(r.content)).toContain('unterminated');
  });
});

describe('model sandbox control routes', () => {
  it('POST /__model/scripts validates and says what is wrong', async () => {
    const bad = await post('/__model/scripts', { safetyIdentifier: 'x', steps: [{ latencyMs: -1, bogus: true }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.issues)).toContain('latencyMs');
    const ok = await post('/__model/scripts', { safetyIdentifier: 'x', steps: [{ reply }, { reply }] });
    expect(ok).toMatchObject({ status: 201, body: { pending: 2 } });
    const appended = await post('/__model/scripts', { safetyIdentifier: 'x', steps: [{ reply }], mode: 'append' });
    expect(appended.body.pending).toBe(3);
  });

  it('GET /__model/calls filters by identifier and since', async () => {
    sandbox.script({ safetyIdentifier: 'f', steps: [{ reply }, { reply }] });
    await generateText({ model: model(), prompt: 'x', tools, providerOptions: { openai: { safetyIdentifier: 'f' } } });
    await generateText({ model: model(), prompt: 'x', tools, providerOptions: { openai: { safetyIdentifier: 'f' } } });
    await generateText({
      model: model(),
      prompt: 'x',
      tools,
      providerOptions: { openai: { safetyIdentifier: 'other' } },
    });
    const res = await fetch(`${sandbox.url}/__model/calls?safetyIdentifier=f`);
    const { calls } = (await res.json()) as { calls: { seq: number }[] };
    expect(calls).toHaveLength(2);
    const since = await fetch(`${sandbox.url}/__model/calls?since=${calls[0]!.seq}`);
    expect(((await since.json()) as { calls: unknown[] }).calls).toHaveLength(2);
    expect((await fetch(`${sandbox.url}/__model/calls?since=abc`)).status).toBe(400);
  });

  it('answers anything but chat completions with a 404 that names the supported route', async () => {
    const res = await post('/v1/responses', { input: 'x' });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).toContain('OPENAI_API_MODE=chat');
    const bad = await post('/v1/chat/completions', { nope: true });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('messages');
  });

  it('serves /chat/completions without the /v1 prefix too', async () => {
    sandbox.script({ safetyIdentifier: 'np', steps: [{ reply }] });
    const r = await post('/chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      safety_identifier: 'np',
    });
    expect(r.status).toBe(200);
    const choice = (
      r.body.choices as {
        message: { tool_calls: { type: string; function: { name: string; arguments: string } }[] };
        finish_reason: string;
      }[]
    )[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'reply' } });
    expect(JSON.parse(choice.message.tool_calls[0]!.function.arguments)).toEqual(reply);
  });
});
