import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAGE_ID, DEMO_WEBHOOK_SECRET } from '../../dev/demo-tenant.js';
import { QSTASH_DEV_CREDENTIALS } from '../../dev/qstash-broker.js';
import { freePort } from '../../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, seedDemoTenant, startLocalStack, type LocalStack } from '../../dev/stack.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { qstashPublisher } from '../../outbox/publisher.js';
import { sweepOutbox } from '../../outbox/sweeper.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { action, entryFor, performed, uniqueId, writeEntry } from './outbox-fixtures.js';

/**
 * The whole path over real HTTP: ManyChat webhook → Worker (wrangler dev, workerd) → commit →
 * QStash broker → signed delivery to /v1/outbox/deliver → ManyChat sandbox. The offline rule
 * model answers "send me the brochure" by staging the brochure flow. The stack gets a Redis of its
 * own (REDIS_URL points at a free port, so the stack starts one), because the Worker's cron sweep
 * walks every tenant and must not publish other tests' entries; each test also has its own contact.
 */
const BROCHURE_NS = 'content20250101000000_000001';

let stack: LocalStack;
let session: RedisSession;
let workerUrl: string;
const tenantId = uniqueId('e2e');
const savedRedisUrl = process.env.REDIS_URL;

beforeAll(async () => {
  process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
  stack = await startLocalStack({
    withWorker: true,
    qstashRetryBaseMs: 200,
    stateDir: join(ROOT, '.local', 'test-outbox-e2e'),
  });
  expect(stack.redis.owned).toBe(true);
  workerUrl = stack.facts.workerUrl ?? '';
  await seedDemoTenant(stack.upstash.url, DEV_UPSTASH_TOKEN, tenantId);
  session = RedisSession.connect(stack.upstash.url, DEV_UPSTASH_TOKEN);
}, 120_000);

// A test that fails early must not leave a fault or a publish failure for the next one.
afterEach(() => {
  stack?.manychat.reset();
  stack?.qstash.failNextPublishes(0);
});

afterAll(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await stack?.close();
});

function newContact(): string {
  const id = String(Math.floor(1e9 + Math.random() * 8e9));
  stack.manychat.addSubscriber({ pageId: DEMO_PAGE_ID, id, firstName: 'Ada' });
  return id;
}

async function webhook(contactId: string, text = 'Can you send me the brochure?') {
  const res = await fetch(`${workerUrl}/v1/manychat/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': DEMO_WEBHOOK_SECRET },
    body: JSON.stringify({ contact: { id: contactId }, text, message_key: uniqueId('mk') }),
  });
  expect(res.status).toBe(200);
  const turnId = res.headers.get('x-turn-id');
  expect(turnId).toBeTruthy();
  return turnId ?? '';
}

function calls(contactId: string) {
  return stack.manychat
    .calls({ pageId: DEMO_PAGE_ID })
    .filter((c) => String((c.body as { subscriber_id?: unknown } | null)?.subscriber_id) === contactId);
}

async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A quiet spell: anything QStash still had to retry would have arrived by then (base 200 ms). */
const settle = () => new Promise((r) => setTimeout(r, 1500));

async function isPending(turnId: string) {
  return (await session.one((r) => r.zscore(tenantKeys(tenantId).outboxPending, turnId))) !== null;
}

describe('outbox end to end (wrangler dev + broker + sandbox)', () => {
  it('a webhook asking for the brochure → the broker delivers → exactly one sendFlow', async () => {
    const contact = newContact();
    const turnId = await webhook(contact);
    await until('the sendFlow call', () =>
      calls(contact).some((c) => c.path.endsWith('/sendFlow') && c.status === 200),
    );
    await settle();
    const sent = calls(contact).filter((c) => c.path.endsWith('/sendFlow'));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ flow_ns: BROCHURE_NS });
    expect(await isPending(turnId)).toBe(false);
  });

  it('sendFlow answering 429, then 503, then 200 through QStash retries is performed exactly once', async () => {
    const contact = newContact();
    stack.manychat.injectFault({
      path: '/sendFlow',
      pageId: DEMO_PAGE_ID,
      count: 1,
      kind: '429',
      retryAfterSeconds: 1,
    });
    stack.manychat.injectFault({ path: '/sendFlow', pageId: DEMO_PAGE_ID, count: 1, kind: '503' });
    await webhook(contact);
    await until(
      'the successful sendFlow',
      () => calls(contact).some((c) => c.path.endsWith('/sendFlow') && c.status === 200),
      20_000,
    );
    await settle();
    const attempts = calls(contact).filter((c) => c.path.endsWith('/sendFlow'));
    expect(attempts.map((c) => c.status)).toEqual([429, 503, 200]);
    expect(performed(attempts)).toEqual(['sendFlow']);
  });

  it('a failed publish leaves the entry pending; the sweeper publishes it again; delivered once', async () => {
    const contact = newContact();
    // The broker is down for this turn: its delivery fails to publish (a turn answered in time
    // publishes nothing else — no finish-turn job — so this is the turn's only publish).
    stack.qstash.failNextPublishes(1);
    const turnId = await webhook(contact);
    await settle();
    expect(calls(contact)).toHaveLength(0);
    expect(await isPending(turnId)).toBe(true);

    const publisher = qstashPublisher({
      qstashUrl: stack.qstash.url,
      qstashToken: QSTASH_DEV_CREDENTIALS.token,
      publicUrl: workerUrl,
    });
    const swept = await sweepOutbox({ session, publisher, olderThanMs: 0, tenantIds: [tenantId] });
    expect(swept).toMatchObject({ stale: 1, published: 1, failed: 0 });
    await until('the swept delivery', () =>
      calls(contact).some((c) => c.path.endsWith('/sendFlow') && c.status === 200),
    );
    await settle();
    expect(performed(calls(contact))).toEqual(['sendFlow']);
    expect(await isPending(turnId)).toBe(false);
  });

  it("the Worker's cron handler sweeps an entry stuck past the timeout and it is delivered once", async () => {
    const contact = newContact();
    const turnId = uniqueId('turn_');
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    await writeEntry(
      session,
      entryFor(
        tenantId,
        turnId,
        contact,
        [action(turnId, 1, { kind: 'send_flow', args: { flowNs: BROCHURE_NS, flowName: 'brochure' } })],
        tenMinutesAgo,
      ),
    );
    // wrangler dev runs the `scheduled` handler on this path, as the cron trigger would.
    const res = await fetch(`${workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(res.status).toBe(200);
    await until('the swept delivery', () =>
      calls(contact).some((c) => c.path.endsWith('/sendFlow') && c.status === 200),
    );
    await settle();
    expect(performed(calls(contact))).toEqual(['sendFlow']);
    expect(await isPending(turnId)).toBe(false);
  });

  it('the same signed delivery 10 times at once performs each action once (workerd)', async () => {
    const contact = newContact();
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, contact, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: BROCHURE_NS, flowName: 'brochure' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
      ]),
    );
    const body = JSON.stringify({ tenantId, turnId });
    const url = `${workerUrl}/v1/outbox/deliver`;
    const signature = await signQStashDelivery({ key: QSTASH_DEV_CREDENTIALS.currentSigningKey, url, body });
    const statuses = await Promise.all(
      Array.from(
        { length: 10 },
        async () =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'Upstash-Signature': signature },
              body,
            })
          ).status,
      ),
    );
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses).toContain(200);
    expect(performed(calls(contact))).toEqual(['sendFlow', 'addTagByName']);
    expect(calls(contact)).toHaveLength(2);
  });

  it('forged, expired or altered deliveries are 401 in workerd and perform nothing', async () => {
    const contact = newContact();
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, contact, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: BROCHURE_NS, flowName: 'brochure' } }),
      ]),
    );
    const body = JSON.stringify({ tenantId, turnId });
    const url = `${workerUrl}/v1/outbox/deliver`;
    const key = QSTASH_DEV_CREDENTIALS.currentSigningKey;
    const forged = [
      undefined,
      await signQStashDelivery({ key: 'sig_not_the_key_at_all_000000', url, body }),
      await signQStashDelivery({ key, url, body, issuedAt: Math.floor(Date.now() / 1000) - 900 }),
      await signQStashDelivery({ key, url, body: `${body} ` }),
    ];
    for (const signature of forged) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'Upstash-Signature': signature } : {}) },
        body,
      });
      expect(res.status).toBe(401);
    }
    expect(calls(contact)).toHaveLength(0);
    expect(await isPending(turnId)).toBe(true);
  });
});
