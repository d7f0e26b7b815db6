import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAGE_ID, DEMO_WEBHOOK_SECRET, demoTenantConfig } from '../../dev/demo-tenant.js';
import { startModelSandbox, safetyIdentifierFor, type ModelSandbox } from '../../dev/model-sandbox.js';
import { freePort } from '../../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, startLocalStack, type LocalStack, devSecretKeys } from '../../dev/stack.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { DEMO_MANYCHAT_API_KEY } from '../../dev/demo-tenant.js';
import { FINISH_TURN_PATH } from '../../core/finish-turn-job.js';

/**
 * A model turn slower than ManyChat waits, over real HTTP: wrangler dev (workerd) talks to a
 * scripted OpenAI-compatible model server whose first call takes 12 s. The webhook must answer
 * at the deadline; the reply and the staged flow then reach the ManyChat sandbox through QStash,
 * once and in order. Then the same with the Worker killed mid-turn: the delayed finish-turn job
 * runs the turn again on the restarted Worker.
 */
let stack: LocalStack;
let models: ModelSandbox;
const savedRedisUrl = process.env.REDIS_URL;
const BROCHURE_NS = 'content20250101000000_000001';
/** The stack's own lines (broker deliveries and retries, the Worker's output), shown when a wait fails. */
const stackLog: string[] = [];

beforeAll(async () => {
  models = await startModelSandbox();
  process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
  stack = await startLocalStack({
    withWorker: true,
    // The broker retries a job 1 s, 2 s, 4 s… after a failed delivery: a finish-turn job (3 retries)
    // that meets the restarted Worker still starting on a loaded machine is retried for 7 s, not 1.4.
    qstashRetryBaseMs: 1000,
    workerLogLevel: 'log',
    log: (line) => stackLog.push(`${new Date().toISOString()} ${line}`),
    stateDir: join(ROOT, '.local', 'test-slow-turn'),
    workerVars: { OPENAI_API_KEY: 'sandbox', OPENAI_BASE_URL: models.baseURL, OPENAI_API_MODE: 'chat' },
  });
}, 120_000);

afterAll(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await stack?.close();
  await models?.close();
});

async function tenantWithContact(asyncDeadlineMs: number, deadlineMs = 8_000) {
  const tenantId = `slow${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const saved = await saveTenant(
    RedisSession.connect(stack.upstash.url, DEV_UPSTASH_TOKEN),
    { ...demoTenantConfig(tenantId), holdingReply: 'One moment please…', asyncDeadlineMs, deadlineMs },
    {
      plain: { webhookSecret: DEMO_WEBHOOK_SECRET, manychatApiKey: DEMO_MANYCHAT_API_KEY },
      keys: await devSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  const contactId = String(Math.floor(1e9 + Math.random() * 8e9));
  stack.manychat.addSubscriber({ pageId: DEMO_PAGE_ID, id: contactId, firstName: 'Ada' });
  return { tenantId, contactId };
}

const brochureStep = (latencyMs: number, text: string) => ({
  latencyMs,
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: { text, escalate: false, confidence: 0.9, reason: 'asked for the brochure' },
});

async function postWebhook(tenantId: string, contactId: string) {
  return fetch(`${stack.facts.workerUrl}/v1/manychat/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': DEMO_WEBHOOK_SECRET },
    body: JSON.stringify({ contact: { id: contactId }, text: 'Can you send me the brochure?' }),
  });
}

/** Why a wait came up short: the broker's and the Worker's last lines and this contact's ManyChat calls. */
function explainMissingCalls(contactId: string, wanted: number, got: number) {
  const contactCalls = stack.manychat
    .calls()
    .filter((c) => String((c.body as Record<string, unknown> | null)?.subscriber_id) === contactId)
    .map((c) => `${c.path} ${c.outcome}`);
  console.error(
    [
      `waited for ${wanted} ManyChat calls to contact ${contactId}, got ${got}`,
      `this contact's calls, any outcome: ${JSON.stringify(contactCalls)}`,
      "the stack's last 60 lines:",
      ...stackLog.slice(-60),
    ].join('\n'),
  );
}

async function until(done: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function callsFor(contactId: string, count: number, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const calls = stack.manychat
      .calls()
      .filter(
        (c) => String((c.body as Record<string, unknown> | null)?.subscriber_id) === contactId && c.outcome === 'ok',
      );
    if (calls.length >= count) return calls;
    if (Date.now() > until) {
      if (timeoutMs > 0) explainMissingCalls(contactId, count, calls.length);
      return calls;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('a 12 s model turn', () => {
  it('is answered before the deadline; reply then flow are delivered once, in order, through the outbox', async () => {
    const { tenantId, contactId } = await tenantWithContact(20_000);
    models.script({
      safetyIdentifier: safetyIdentifierFor(tenantId, contactId),
      steps: [brochureStep(12_000, 'Here is the brochure you asked for.')],
    });
    const res = await postWebhook(tenantId, contactId);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    const body = (await res.json()) as { content: { messages: { text: string }[] } };
    expect(body.content.messages[0]?.text).toBe('One moment please…');
    // Answered while the model was still thinking: nothing performed yet.
    expect(
      stack.manychat
        .calls()
        .filter((c) => String((c.body as Record<string, unknown> | null)?.subscriber_id) === contactId),
    ).toEqual([]);

    const calls = await callsFor(contactId, 2, 30_000);
    expect(calls.map((c) => c.path)).toEqual(['/fb/sending/sendContent', '/fb/sending/sendFlow']);
    expect(JSON.stringify(calls[0]?.body)).toContain('Here is the brochure you asked for.');
    expect((calls[1]?.body as { flow_ns: string }).flow_ns).toBe(BROCHURE_NS);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await callsFor(contactId, 3, 0)).toHaveLength(2);
  }, 60_000);

  it('whose Worker is killed mid-turn is completed once by the finish-turn job', async () => {
    const { tenantId, contactId } = await tenantWithContact(15_000);
    const id = safetyIdentifierFor(tenantId, contactId);
    models.script({
      safetyIdentifier: id,
      steps: [brochureStep(12_000, 'reply from the first run'), brochureStep(0, 'reply from the rerun')],
    });
    const res = await postWebhook(tenantId, contactId);
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    // The job is published after the answer (waitUntil): kill the Worker only once it is with the broker.
    await until(
      () => stack.qstash.messages().some((m) => m.url.endsWith(FINISH_TURN_PATH) && m.body?.includes(contactId)),
      15_000,
      'the finish-turn job to reach the broker',
    );
    await stack.restartWorker(); // the background continuation dies with its isolate
    // The job is due asyncDeadline (15 s) + 15 s after the deferral; on a loaded machine (CI runs
    // the workerd files beside this one) the restarted Worker and the broker's retries of a job
    // that met it still starting took longer than 60 s once, so it gets 90.
    const calls = await callsFor(contactId, 2, 90_000);
    expect(calls.map((c) => c.path)).toEqual(['/fb/sending/sendContent', '/fb/sending/sendFlow']);
    expect(JSON.stringify(calls[0]?.body)).toContain('reply from the rerun');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await callsFor(contactId, 3, 0)).toHaveLength(2);
    // Two model steps ran (the dead first run's and the rerun's); a hedge of the first run's slow
    // call, if it was sent before the Worker died, is that same step again — never a third step.
    expect(
      models
        .calls({ safetyIdentifier: id })
        .filter((c) => !c.hedge)
        .map((c) => c.stepIndex),
    ).toEqual([0, 1]);
    expect(models.calls({ safetyIdentifier: id }).filter((c) => c.hedge).length).toBeLessThanOrEqual(1);
    for (const hedge of models.calls({ safetyIdentifier: id }).filter((c) => c.hedge)) expect(hedge.stepIndex).toBe(0);
  }, 120_000);

  it('whose Worker is killed mid-turn and whose finish-turn job was never published is finished by the cron', async () => {
    const { tenantId, contactId } = await tenantWithContact(5_000, 2_000);
    const id = safetyIdentifierFor(tenantId, contactId);
    models.script({
      safetyIdentifier: id,
      steps: [brochureStep(12_000, 'reply from the first run'), brochureStep(0, 'reply from the rerun')],
    });
    // The broker refuses the turn's only up-front publish: its finish-turn job is lost.
    stack.qstash.failNextPublishes(1);
    const res = await postWebhook(tenantId, contactId);
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    // The job is published after the answer (waitUntil): kill the Worker only once the broker has
    // refused it. Killed sooner (a loaded machine), the refusal would fall on the cron's publish.
    await until(() => stack.qstash.publishFailuresLeft() === 0, 15_000, 'the finish-turn publish to be refused');
    await stack.restartWorker(); // the background continuation dies with its isolate
    // Nothing will finish it but the cron: the claim is due 5 s (its background deadline) + 15 s after it opened.
    await new Promise((r) => setTimeout(r, 21_000));
    expect(await callsFor(contactId, 1, 0)).toEqual([]);
    const cron = await fetch(
      `${stack.facts.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`,
    );
    expect(cron.status).toBe(200);
    const calls = await callsFor(contactId, 2, 30_000);
    expect(calls.map((c) => c.path)).toEqual(['/fb/sending/sendContent', '/fb/sending/sendFlow']);
    expect(JSON.stringify(calls[0]?.body)).toContain('reply from the rerun');
    // A second cron finds the turn committed: nothing more is published or performed.
    await fetch(`${stack.facts.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await callsFor(contactId, 3, 0)).toHaveLength(2);
    // Two model steps ran (the dead first run's and the rerun's); a hedge of the first run's slow
    // call, if it was sent before the Worker died, is that same step again — never a third step.
    expect(
      models
        .calls({ safetyIdentifier: id })
        .filter((c) => !c.hedge)
        .map((c) => c.stepIndex),
    ).toEqual([0, 1]);
    expect(models.calls({ safetyIdentifier: id }).filter((c) => c.hedge).length).toBeLessThanOrEqual(1);
    for (const hedge of models.calls({ safetyIdentifier: id }).filter((c) => c.hedge)) expect(hedge.stepIndex).toBe(0);
  }, 120_000);
});
