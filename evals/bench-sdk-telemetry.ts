/**
 * `npm run bench:sdk-telemetry`: what the AI SDK's own telemetry costs a `generateText` call when
 * nothing subscribes to it, in Node (issue 34, third round). A mock model answers one read-tool
 * call and the reply call, so each call also executes one tool, as a read-then-reply step does;
 * rounds alternate the SDK's default and `telemetry: { isEnabled: false }` (src/turn/model-loop.ts).
 * A figure for the SDK's share alone: the Worker's CPU is measured by `npm run bench:miniflare`.
 */
import { parseArgs } from 'node:util';
import { generateText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const { values } = parseArgs({ options: { calls: { type: 'string' }, rounds: { type: 'string' } } });
const calls = Number(values.calls ?? 5000);
const rounds = Number(values.rounds ?? 5);

const model = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_it', input: '{}' },
      {
        type: 'tool-call',
        toolCallId: 'c2',
        toolName: 'reply',
        input: JSON.stringify({ text: 'hi', escalate: false, confidence: 0.9, reason: 'x' }),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: {
      inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 20, text: 20, reasoning: 0 },
    },
    warnings: [],
  }),
});
const tools = {
  read_it: tool({ inputSchema: z.object({}), execute: async () => 'ok' }),
  reply: tool({
    inputSchema: z.object({ text: z.string(), escalate: z.boolean(), confidence: z.number(), reason: z.string() }),
  }),
};

/** Microseconds a call, over `n` calls in a row. */
async function perCall(telemetryOff: boolean, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++)
    await generateText({
      model,
      prompt: 'hello',
      tools,
      toolChoice: 'required',
      maxRetries: 0,
      ...(telemetryOff ? { telemetry: { isEnabled: false } } : {}),
    });
  return ((performance.now() - started) / n) * 1000;
}

await perCall(false, 2000);
await perCall(true, 2000);
const saved: number[] = [];
console.log(`generateText with a mock model, ${calls} calls a side a round (µs a call):`);
for (let r = 1; r <= rounds; r++) {
  const on = await perCall(false, calls);
  const off = await perCall(true, calls);
  saved.push(on - off);
  console.log(`round ${r}: default ${on.toFixed(1)}, telemetry off ${off.toFixed(1)}, saved ${(on - off).toFixed(1)}`);
}
saved.sort((a, b) => a - b);
console.log(
  `saved a call: median ${saved[Math.floor(saved.length / 2)]!.toFixed(1)} µs (${saved[0]!.toFixed(1)}–${saved.at(-1)!.toFixed(1)})`,
);
