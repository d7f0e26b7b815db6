/**
 * `npm run bench:memory` — memory per turn. workerd exposes no per-request heap figure, so this
 * runs the same Worker app (createApp, the same Hono routes, turn, guardrails and @upstash
 * clients) in Node's V8 against the local stand-ins, with a scripted model that waits, so many
 * turns are in flight at once:
 *   - held per in-flight turn = (heap at peak − idle heap) / turns in flight;
 *   - retained per finished turn = (heap after GC − idle heap) / turns (a leak shows here).
 * Node's runtime differs from workerd's; the JavaScript and V8 are the same, so this is an
 * estimate of the app's own share, not of an isolate's total.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { DEMO_WEBHOOK_SECRET } from '../dev/demo-tenant.js';
import { DEV_UPSTASH_TOKEN, seedDemoTenant, startLocalStack } from '../dev/stack.js';
import { createApp } from '../src/app.js';

const IN_FLIGHT = Number(process.env.TURNS ?? 200);
const MODEL_MS = 800;
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');

const usage = {
  inputTokens: { total: 500, noCache: 500, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 40, text: 40, reasoning: 0 },
};
// A plain LanguageModelV4, not MockLanguageModelV4: the mock records every call's prompt, which
// would itself look like a leak of ~50 KB a turn.
const model: LanguageModelV4 = {
  specificationVersion: 'v4',
  provider: 'bench',
  modelId: 'bench-scripted',
  supportedUrls: {},
  doStream: async () => {
    throw new Error('the product calls generateText');
  },
  doGenerate: async () => {
    await new Promise((r) => setTimeout(r, MODEL_MS));
    return {
      content: [
        { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'send_media', input: '{"flow":"brochure"}' },
        {
          type: 'tool-call' as const,
          toolCallId: 'c2',
          toolName: 'reply',
          input: JSON.stringify({
            text: 'Sending you the brochure now.',
            escalate: false,
            confidence: 0.9,
            reason: 'asked',
          }),
        },
      ],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  },
};

function heapMb(): number {
  return process.memoryUsage().heapUsed / 1e6;
}

async function main() {
  const stack = await startLocalStack({ withWorker: false });
  try {
    const tenantId = `mem${Date.now().toString(36)}`;
    await seedDemoTenant(stack.upstash.url, DEV_UPSTASH_TOKEN, tenantId);
    // Rate limits off for the bench tenant: every turn must run.
    const app = createApp((s) => ({
      ...s,
      model: () => ({ model, modelId: 'scripted', offline: false }),
      turnJobs: () => ({ publishFinishTurn: async () => {} }),
      publisher: () => ({ publish: async () => {} }),
    }));
    const env = stack.workerEnv;
    let n = 0;
    const turn = async (): Promise<Response> =>
      app.fetch(
        new Request(`http://bench/v1/manychat/${tenantId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-staged-agent-secret': DEMO_WEBHOOK_SECRET },
          body: JSON.stringify({ contact: { id: String(3_000_000_000 + n++) }, text: 'Can you send me the brochure?' }),
        }),
        env,
      );
    for (let i = 0; i < 20; i++) await (await turn()).text();
    gc!();
    const idle = heapMb();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, heapMb())), 20);
    const round = () =>
      Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          const r = await turn();
          await r.text();
          return r.status;
        }),
      );
    const responses = await round();
    clearInterval(sampler);
    const ok = responses.filter((s) => s === 200).length;
    gc!();
    const after = heapMb();
    // More rounds: retained memory that keeps growing round after round is a leak; a one-off step
    // is caches warming up.
    const afterRounds = [after];
    for (let i = 1; i < ROUNDS; i++) {
      await round();
      gc!();
      afterRounds.push(heapMb());
    }
    console.log(
      `memory per turn (Node 22 V8, same app code; ${IN_FLIGHT} turns in flight, model waits ${MODEL_MS} ms; ${ok}/${IN_FLIGHT} answered 200)`,
    );
    console.log(`  idle heap            ${idle.toFixed(1)} MB`);
    console.log(`  peak heap            ${peak.toFixed(1)} MB`);
    console.log(`  held per in-flight turn   ${(((peak - idle) * 1e3) / IN_FLIGHT).toFixed(0)} KB`);
    console.log(
      `  heap after GC, after each of ${ROUNDS} rounds of ${IN_FLIGHT} turns: ${afterRounds.map((m) => m.toFixed(1)).join(' / ')} MB`,
    );
    console.log(
      `  retained per finished turn, rounds 2–${ROUNDS}: ${(((afterRounds.at(-1)! - after) * 1e3) / ((ROUNDS - 1) * IN_FLIGHT)).toFixed(1)} KB`,
    );
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
