import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { INBOUND_RETRY_PATH, type InboundRetryJob } from '../../core/inbound-retry-job.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { createApp } from '../../src/app.js';
import { runtimeWords } from '../../core/runtime-words.js';
import { cachedTenant } from '../../src/tenants/tenant-cache.js';
import { signCallback } from '../../src/approvals/callback-signature.js';
import { UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE } from '../../src/http/outage-keep-budget.js';
import type { InboundRetryPublisher } from '../../outbox/inbound-retry-publisher.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import { outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * A Redis outage loses no message. The reproduction: with Redis stopped, webhooks answered 500
 * after up to 10.2 s and the messages that arrived were gone.
 */
const deadRedis = () => RedisSession.connect('http://127.0.0.1:9', 'x');

function appWithRedis(
  redisDown: boolean,
  kept: InboundRetryJob[],
  model = scriptedModel([
    { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure.') },
  ]),
) {
  const retries: InboundRetryPublisher = { publishInboundRetry: async (job) => void kept.push(job) };
  const app = createApp((s) => ({
    ...s,
    // The dead Redis is another backend: its own URL, so the health route's per-backend cache (a
    // healthy answer shared for 5 s) cannot hand it the live Redis's answer from another test file.
    ...(redisDown
      ? { redis: deadRedis, env: { ...s.env, UPSTASH_REDIS_REST_URL: `${s.env.UPSTASH_REDIS_REST_URL}#down` } }
      : {}),
    inboundRetries: () => retries,
    model: () => ({ model, modelId: 'scripted', offline: false }),
  }));
  return async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, workerEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

const webhook = (tenantId: string, secret: string, body: unknown) =>
  new Request(`http://worker.test/v1/manychat/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
    body: JSON.stringify(body),
  });

async function signedRetry(job: InboundRetryJob): Promise<Request> {
  const body = JSON.stringify(job);
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${INBOUND_RETRY_PATH}`;
  const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
  return new Request(`http://worker.test${INBOUND_RETRY_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'upstash-signature': signature },
    body,
  });
}

describe('a Redis outage', () => {
  it('a tenant the isolate knows: the holding reply now, the message kept (QStash), run once when Redis is back, its reply through the outbox', async () => {
    const { tenantId, secret } = await seedTenant({ holdingReply: 'One moment please…' });
    const kept: InboundRetryJob[] = [];
    const contactId = await newContact();
    // A first message while Redis answers: the isolate now holds the tenant.
    const greeter = scriptedModel([{ reply: reply('Hello!') }]);
    expect(
      (
        await appWithRedis(
          false,
          kept,
          greeter,
        )(webhook(tenantId, secret, { contact: { id: contactId }, text: 'hi', message_key: 'before' }))
      ).status,
    ).toBe(200);

    const during = await appWithRedis(
      true,
      kept,
    )(webhook(tenantId, secret, { contact: { id: contactId }, text: 'send me the brochure', message_key: 'during' }));
    expect(during.status).toBe(200);
    expect(during.headers.get('x-storage-down')).toBe('1');
    expect(((await during.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      'One moment please…',
    );
    expect(kept).toHaveLength(1);
    expect(kept[0]?.inbound).toMatchObject({ tenantId, contactId, text: 'send me the brochure' });

    // Still down when QStash first comes back: 503, QStash tries again later.
    expect((await appWithRedis(true, [])(await signedRetry(kept[0]!))).status).toBe(503);
    // Redis is back: the delivery runs once, deferred (reply first, then the flow, through the outbox).
    const back = await appWithRedis(false, [])(await signedRetry(kept[0]!));
    expect(back.status).toBe(200);
    const { outcome, turnId } = (await back.json()) as { outcome: string; turnId: string };
    expect(outcome).toBe('finished');
    const record = await turnRecord(tenantId, turnId);
    expect(record.deferred, JSON.stringify({ d: record.decision, r: record.decisionReason, c: record.committed })).toBe(
      true,
    );
    expect(record.decision, record.decisionReason).toBe('pass');
    expect((await outboxEntry(tenantId, turnId))?.actions.map((a) => a.kind)).toEqual(['send_content', 'send_flow']);
    // QStash delivers at least once: a second delivery of the job joins the first turn.
    const again = (await (await appWithRedis(false, [])(await signedRetry(kept[0]!))).json()) as {
      outcome: string;
      turnId: string;
    };
    expect(again).toEqual({ outcome: 'duplicate', turnId });
  });

  it('a tenant the isolate does not know (a cold isolate): the holding reply now, the message kept without the secret, authenticated and run once when Redis is back', async () => {
    const { tenantId, secret } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    const contactId = await newContact();
    expect(cachedTenant(tenantId), 'the Worker restarted: this isolate has never read the tenant').toBeNull();
    const during = await appWithRedis(
      true,
      kept,
    )(webhook(tenantId, secret, { contact: { id: contactId }, text: 'send me the brochure', message_key: 'cold' }));
    expect(during.status).toBe(200);
    expect(during.headers.get('x-storage-down')).toBe('1');
    // The tenant's own holding text is in Redis: the runtime's, in the contact's language.
    expect(((await during.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      runtimeWords({ locale: 'en' }).say('holdingReply'),
    );
    expect(kept).toHaveLength(1);
    expect(kept[0]?.inbound).toMatchObject({ tenantId, contactId, text: 'send me the brochure' });
    expect(kept[0]?.unverified?.secretHmac).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(kept[0])).not.toContain(secret);

    expect((await appWithRedis(true, [])(await signedRetry(kept[0]!))).status).toBe(503);
    const back = await appWithRedis(false, [])(await signedRetry(kept[0]!));
    expect(back.status).toBe(200);
    const { outcome, turnId } = (await back.json()) as { outcome: string; turnId: string };
    expect(outcome).toBe('finished');
    const record = await turnRecord(tenantId, turnId);
    expect(record.decision, record.decisionReason).toBe('pass');
    expect((await outboxEntry(tenantId, turnId))?.actions.map((a) => a.kind)).toEqual(['send_content', 'send_flow']);
    const again = (await (await appWithRedis(false, [])(await signedRetry(kept[0]!))).json()) as object;
    expect(again).toEqual({ outcome: 'duplicate', turnId });
  });

  it('a wrong secret kept by a cold isolate (it cannot tell) is dropped when it runs: no claim, no turn; the real message still runs', async () => {
    const { tenantId, secret } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    const contactId = await newContact();
    expect(cachedTenant(tenantId)).toBeNull();
    const body = { contact: { id: contactId }, text: 'send me the brochure', message_key: 'forged' };
    const forged = await appWithRedis(true, kept)(webhook(tenantId, `${secret}x`, body));
    // Nothing in the answer tells a forger the secret was wrong.
    expect(forged.status).toBe(200);
    expect(kept).toHaveLength(1);
    const dropped = await appWithRedis(false, [])(await signedRetry(kept[0]!));
    expect(dropped.status).toBe(200);
    expect(await dropped.json()).toEqual({ outcome: 'unauthenticated', tenantId });
    // A job that claims to be authenticated cannot be forged: QStash's signature covers the body.
    // The forged copy claimed nothing: the real message with the same key is a first delivery.
    expect(cachedTenant(tenantId)).toBeNull();
    await appWithRedis(true, kept)(webhook(tenantId, secret, body));
    expect(kept).toHaveLength(2);
    expect(kept[1]?.unverified?.secretHmac).not.toBe(kept[0]?.unverified?.secretHmac);
    const real = (await (await appWithRedis(false, [])(await signedRetry(kept[1]!))).json()) as { outcome: string };
    expect(real.outcome).toBe('finished');
    // A tenant that does not exist is dropped alike (200: QStash is done, no dead letter to fill).
    const ghost = { ...kept[0]!, inbound: { ...kept[0]!.inbound, tenantId: `${tenantId}x` } };
    expect(await (await appWithRedis(false, [])(await signedRetry(ghost))).json()).toEqual({
      outcome: 'unauthenticated',
      tenantId: `${tenantId}x`,
    });
  });

  it('a cold isolate keeps at most its per-tenant budget of unauthenticated deliveries; past it, a fast 503', async () => {
    const { tenantId } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    expect(cachedTenant(tenantId)).toBeNull();
    const app = appWithRedis(true, kept);
    const statuses: number[] = [];
    for (let i = 0; i < UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE + 5; i++)
      statuses.push(
        (await app(webhook(tenantId, 'forged', { contact: { id: String(i + 1) }, text: `hi ${i}` }))).status,
      );
    // The bucket refills over a minute: at most one more keep can have come back while the test ran.
    expect(kept.length).toBeGreaterThanOrEqual(UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE);
    expect(kept.length).toBeLessThanOrEqual(UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE + 1);
    expect(statuses.slice(0, UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE).every((s) => s === 200)).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(4);
    // Another tenant's budget is its own.
    const other = await seedTenant();
    expect((await app(webhook(other.tenantId, 'forged', { contact: { id: '1' }, text: 'hi' }))).status).toBe(200);
  });

  it('a suggestion button we signed is authenticated on a cold isolate without Redis: kept as an authenticated retry', async () => {
    const { tenantId } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    const contactId = await newContact();
    expect(cachedTenant(tenantId)).toBeNull();
    const claim = { kind: 'suggest' as const, tenantId, contactId, text: 'Book a class', nonce: 'n-cold' };
    const sig = await signCallback(workerEnv.SESSION_SECRET!, claim);
    const press = (s: string) =>
      new Request(`http://worker.test/v1/manychat/${tenantId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          contact: { id: contactId },
          callback: { kind: 'suggest', text: claim.text, nonce: claim.nonce },
          sig: s,
        }),
      });
    expect((await appWithRedis(true, kept)(press(sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A')))).status).toBe(
      401,
    );
    expect(kept).toEqual([]);
    expect((await appWithRedis(true, kept)(press(sig))).status).toBe(200);
    expect(kept).toHaveLength(1);
    expect(kept[0]?.unverified).toBeUndefined();
    expect(kept[0]?.inbound).toMatchObject({ tenantId, contactId, text: 'Book a class', messageKey: 'qr:n-cold' });
  });

  it('a cold isolate still refuses a request with neither a secret nor a signed button (401), and a body that is no webhook (400)', async () => {
    const { tenantId, secret } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    expect(cachedTenant(tenantId)).toBeNull();
    const app = appWithRedis(true, kept);
    const noHeader = new Request(`http://worker.test/v1/manychat/${tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contact: { id: '1' }, text: 'hi' }),
    });
    expect((await app(noHeader)).status).toBe(401);
    expect((await app(webhook(tenantId, secret, { text: 'no contact' }))).status).toBe(400);
    expect(kept).toEqual([]);
  });

  it('a wrong secret is still refused while Redis is down', async () => {
    const { tenantId, secret } = await seedTenant();
    const kept: InboundRetryJob[] = [];
    await appWithRedis(false, kept)(webhook(tenantId, secret, { contact: { id: '1' }, text: 'hi' }));
    expect(
      (await appWithRedis(true, kept)(webhook(tenantId, 'wrong', { contact: { id: '1' }, text: 'hi' }))).status,
    ).toBe(401);
    expect(kept).toEqual([]);
  });

  it('health reports the outage', async () => {
    const res = await appWithRedis(true, [])(new Request('http://worker.test/v1/health'));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { redis: { ok: boolean } }).redis.ok).toBe(false);
  });
});

describe('QStash deliveries during an outage', () => {
  it('an outbox delivery or a finish-turn job that meets a dead Redis is a 503 with Retry-After (QStash retries), never a 500', async () => {
    const { signQStashDelivery } = await import('../support/qstash-signature.js');
    const { DELIVERY_PATH } = await import('../../outbox/publisher.js');
    const body = JSON.stringify({ tenantId: 'some-tenant', turnId: 'turn_x' });
    const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${DELIVERY_PATH}`;
    const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
    const res = await appWithRedis(
      true,
      [],
    )(
      new Request(`http://worker.test${DELIVERY_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'upstash-signature': signature },
        body,
      }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
  });
});
