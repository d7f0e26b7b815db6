import { testSecretKeys } from '../../test/support/workers-env.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { TTL, TENANT_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { saveTenant } from '../tenants/tenant-store.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { signQStashDelivery } from '../../test/support/qstash-signature.js';

/**
 * The delivery endpoint inside workerd (the Receiver's jose + Web Crypto path), with ManyChat
 * replaced by a recording fetch so the assertions are about exactly what was sent.
 */
const PUBLIC_URL = 'https://agent.example.test';
const DELIVER_URL = `${PUBLIC_URL}/v1/outbox/deliver`;
const MANYCHAT_URL = 'https://manychat.stub';
const tenantId = `drt${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

const sent: { path: string; body: Record<string, unknown> }[] = [];
const stubFetch: typeof fetch = async (input, init) => {
  const url = new URL(String(input instanceof Request ? input.url : input));
  if (url.origin !== MANYCHAT_URL) return fetch(input, init);
  sent.push({ path: url.pathname, body: JSON.parse(String(init?.body)) as Record<string, unknown> });
  return new Response('{"status":"success"}', { status: 200, headers: { 'content-type': 'application/json' } });
};
const app = createApp((services) => ({ ...services, fetch: stubFetch }));

let env: Record<string, string>;
let session: RedisSession;
let signingKey: string;
let n = 0;

beforeAll(async () => {
  const workerEnv = inject('workerEnv');
  env = { ...workerEnv, PUBLIC_URL, MANYCHAT_API_URL: MANYCHAT_URL };
  signingKey = workerEnv.QSTASH_CURRENT_SIGNING_KEY ?? '';
  session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
  const saved = await saveTenant(session, demoTenantConfig(tenantId), {
    plain: { webhookSecret: 's', manychatApiKey: '1:k' },
    keys: await testSecretKeys(),
  });
  expect(saved.ok).toBe(true);
});

afterAll(async () => {
  const keys = await session.one((r) => r.keys(`t:${tenantId}:*`));
  await session.pipeline((p) => {
    if (keys.length) p.del(...keys);
    p.srem(TENANT_INDEX_KEY, tenantId);
  });
});

async function newEntry(): Promise<{ subscriber: string; body: string }> {
  n++;
  const turnId = `turn_drt${n}`;
  const subscriber = String(7_000_000 + n + Math.floor(Math.random() * 1_000_000) * 10);
  const entry: OutboxEntry = {
    turnId,
    tenantId,
    channel: 'manychat',
    contactId: subscriber,
    state: 'pending',
    createdAt: new Date().toISOString(),
    attempts: 0,
    actions: [
      {
        id: `${turnId}.a1`,
        tool: 'send_media',
        kind: 'send_flow',
        args: { flowNs: 'content1', flowName: 'brochure' },
        effect: 'write',
        idempotent: false,
        gate: 'none',
        summary: 'send brochure',
      },
      {
        id: `${turnId}.a2`,
        tool: 'tag_contact',
        kind: 'add_tag',
        args: { tag: 'interested' },
        effect: 'write',
        idempotent: true,
        gate: 'none',
        summary: 'tag interested',
      },
    ],
  };
  const keys = tenantKeys(tenantId);
  await session.multi((m) => {
    m.set(keys.outbox(turnId), JSON.stringify(entry), { ex: TTL.outboxSeconds });
    m.zadd(keys.outboxPending, { score: Date.now(), member: turnId });
  });
  return { subscriber, body: JSON.stringify({ tenantId, turnId }) };
}

const sentTo = (subscriber: string) =>
  sent.filter((s) => String(s.body.subscriber_id) === subscriber).map((s) => s.path);

function post(body: string, signature?: string) {
  return app.request(
    '/v1/outbox/deliver',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'Upstash-Signature': signature } : {}) },
      body,
    },
    env,
  );
}

describe('POST /v1/outbox/deliver in workerd', () => {
  it('a valid signature delivers: each action once, in order', async () => {
    const { subscriber, body } = await newEntry();
    const res = await post(body, await signQStashDelivery({ key: signingKey, url: DELIVER_URL, body }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'done', entryState: 'done' });
    expect(sentTo(subscriber)).toEqual(['/fb/sending/sendFlow', '/fb/subscriber/addTagByName']);
  });

  it('unsigned, forged, expired and body-altered deliveries are 401 and send nothing', async () => {
    const { subscriber, body } = await newEntry();
    const now = Math.floor(Date.now() / 1000);
    const attempts = [
      undefined,
      await signQStashDelivery({ key: 'sig_forged', url: DELIVER_URL, body }),
      await signQStashDelivery({ key: signingKey, url: DELIVER_URL, body, issuedAt: now - 900 }),
      await signQStashDelivery({ key: signingKey, url: DELIVER_URL, body: body.replace('}', ',"x":1}') }),
    ];
    for (const signature of attempts) expect((await post(body, signature)).status).toBe(401);
    expect(sentTo(subscriber)).toEqual([]);
  });

  it('10 concurrent deliveries of one entry send each action once', async () => {
    const { subscriber, body } = await newEntry();
    const signature = await signQStashDelivery({ key: signingKey, url: DELIVER_URL, body });
    const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await post(body, signature)).status));
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses).toContain(200);
    expect(sentTo(subscriber)).toEqual(['/fb/sending/sendFlow', '/fb/subscriber/addTagByName']);
  });
});
