import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { InboundRetryJob } from '../../core/inbound-retry-job.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { signCallback } from '../../src/approvals/callback-signature.js';
import { createApp } from '../../src/app.js';
import { signHubBody } from '../../src/channels/messenger/hub-signature.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { InboundRetryPublisher } from '../../outbox/inbound-retry-publisher.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { session, uniqueId, workerEnv } from '../support/workers-env.js';
import { appWith } from './turn-helpers.js';
import {
  echoModel,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  turnIds,
  webhookBody,
  type MessengerTenant,
} from './messenger-helpers.js';

/**
 * Issue 31: events are bound to the tenant's page, one callback URL serves a Meta app's pages,
 * and nothing Meta was answered 200 for is lost.
 */
const APP_ID = '7700000000001';

/** Two tenants of one agency, each with its own page, behind the same Meta app (one app secret). */
async function agencyTenants(): Promise<[MessengerTenant, MessengerTenant]> {
  const appSecret = `agency-secret-${uniqueId('a')}`;
  const a = await seedMessengerTenant({ displayName: 'Tenant A', messenger: { appId: APP_ID } }, { appSecret });
  const b = await seedMessengerTenant({ displayName: 'Tenant B', messenger: { appId: APP_ID } }, { appSecret });
  return [a, b];
}

async function postApp(
  app: ReturnType<typeof appWith>,
  body: object,
  secret: string,
  appId = APP_ID,
): Promise<Response> {
  const raw = JSON.stringify(body);
  return app.fetch(
    new Request(`http://worker.test/v1/messenger/app/${appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': await signHubBody(raw, secret) },
      body: raw,
    }),
  );
}

describe('a Messenger event is processed only for a page its tenant owns', () => {
  it("a signed event for a page the tenant does not list, posted to the tenant's URL: acknowledged, ignored and logged, no turn", async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const a = appWith(echoModel());
    const foreign = {
      object: 'page',
      entry: [
        {
          id: '999999999999',
          time: Date.now(),
          messaging: [
            {
              sender: { id: psid },
              recipient: { id: '999999999999' },
              timestamp: Date.now(),
              message: { mid: `m_${psid}_f`, text: 'hello' },
            },
          ],
        },
      ],
    };
    const res = await postMessenger(a, t, foreign);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: { messages: 0, presses: 0, ignored: 1 } });
    await a.settle();
    expect(await turnIds(t.tenantId)).toEqual([]);
    expect(await sentTo(psid)).toEqual([]);
  });

  it("a page listed by one tenant cannot be saved into another's config", async () => {
    const t = await seedMessengerTenant();
    const other = uniqueId('m');
    const saved = await saveTenant(session(), {
      ...demoTenantConfig(other),
      tenantId: other,
      messenger: { pages: [{ id: t.pageId }], handoverAppId: '263902037430900' },
    });
    expect(saved.ok).toBe(false);
    expect(saved.ok ? [] : saved.problems).toEqual([`messenger page "${t.pageId}" belongs to tenant "${t.tenantId}"`]);
  });
});

describe("POST /v1/messenger/app/:appId — one callback URL for a Meta app's pages", () => {
  it('two pages of two tenants in one batch: each entry runs as the tenant that owns its page; a foreign page is ignored', async () => {
    const [a, b] = await agencyTenants();
    const psidA = await newPsid(a);
    const psidB = await newPsid(b);
    const app = appWith(echoModel());
    const body = {
      object: 'page',
      entry: [
        { id: a.pageId, time: Date.now(), messaging: [textItem(a, psidA, `m_${psidA}_1`, 'hello A', Date.now())] },
        { id: b.pageId, time: Date.now(), messaging: [textItem(b, psidB, `m_${psidB}_1`, 'hello B', Date.now())] },
        {
          id: '999999999999',
          time: Date.now(),
          messaging: [
            {
              sender: { id: psidA },
              recipient: { id: '999999999999' },
              timestamp: Date.now(),
              message: { mid: `m_${psidA}_x`, text: 'not ours' },
            },
          ],
        },
      ],
    };
    const res = await postApp(app, body, a.appSecret);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      received: {
        [a.tenantId]: { messages: 1, presses: 0, ignored: 0 },
        [b.tenantId]: { messages: 1, presses: 0, ignored: 0 },
      },
      ignored: 1,
    });
    await app.settle();
    expect(await turnIds(a.tenantId)).toHaveLength(1);
    expect(await turnIds(b.tenantId)).toHaveLength(1);
  });

  it('a body signed with another secret, or a tenant that names another app, is 401 and runs nothing', async () => {
    const [a] = await agencyTenants();
    const psid = await newPsid(a);
    const app = appWith(echoModel());
    const body = webhookBody(a, [textItem(a, psid, `m_${psid}_1`, 'hello', Date.now())]);
    expect((await postApp(app, body, 'not-the-app-secret')).status).toBe(401);
    expect((await postApp(app, body, a.appSecret, '7700000000002')).status).toBe(401);
    await app.settle();
    expect(await turnIds(a.tenantId)).toEqual([]);
  });

  it('the subscription check echoes the challenge for the verify token of a tenant on the app, 403 otherwise', async () => {
    const [a] = await agencyTenants();
    const app = appWith(echoModel());
    const check = (token: string, appId = APP_ID) =>
      app.fetch(
        new Request(
          `http://worker.test/v1/messenger/app/${appId}?${new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '31' })}`,
        ),
      );
    const ok = await check(a.verifyToken);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('31');
    expect((await check(`${a.verifyToken}x`)).status).toBe(403);
    expect((await check(a.verifyToken, '7700000000002')).status).toBe(403);
  });
});

/** Redis answers the first `answering` sessions (the tenant lookup), then never again. */
function appWithFailingRedis(kept: InboundRetryJob[], answering = 1) {
  let sessions = 0;
  const retries: InboundRetryPublisher = { publishInboundRetry: async (job) => void kept.push(job) };
  const app = createApp((s) => ({
    ...s,
    redis: () => (++sessions <= answering ? s.redis() : RedisSession.connect('http://127.0.0.1:9', 'x')),
    inboundRetries: () => retries,
    model: () => ({ model: scriptedModel([{ reply: reply('Hi') }]), modelId: 'scripted', offline: false }),
  }));
  return async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, workerEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

async function signedRequest(t: MessengerTenant, body: object): Promise<Request> {
  const raw = JSON.stringify(body);
  return new Request(`http://worker.test/v1/messenger/${t.tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': await signHubBody(raw, t.appSecret) },
    body: raw,
  });
}

describe('nothing acknowledged is lost: Redis failing after the tenant lookup', () => {
  it('a message: 200, and it is kept as a QStash inbound retry (not only logged)', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const kept: InboundRetryJob[] = [];
    const res = await appWithFailingRedis(kept)(
      await signedRequest(t, webhookBody(t, [textItem(t, psid, `m_${psid}_1`, 'are you open?', Date.now())])),
    );
    expect(res.status).toBe(200);
    expect(kept.map((k) => [k.inbound.tenantId, k.inbound.contactId, k.inbound.messageKey, k.inbound.text])).toEqual([
      [t.tenantId, psid, `mid:m_${psid}_1`, 'are you open?'],
    ]);
  });

  it('a button press: not acknowledged (503), so Meta retries it', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const claim = { pendingId: 'pc_1', answer: 'yes' as const, nonce: 'n1' };
    const sig = await signCallback(workerEnv.SESSION_SECRET!, {
      kind: 'confirm',
      tenantId: t.tenantId,
      contactId: psid,
      ...claim,
    });
    const payload = JSON.stringify({ sa: 1, kind: 'confirm', ...claim, sig });
    const press = {
      sender: { id: psid },
      recipient: { id: t.pageId },
      timestamp: Date.now(),
      message: { mid: `m_${psid}_p`, text: 'Yes', quick_reply: { payload } },
    };
    const kept: InboundRetryJob[] = [];
    const res = await appWithFailingRedis(kept)(await signedRequest(t, webhookBody(t, [press])));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
  });
});
