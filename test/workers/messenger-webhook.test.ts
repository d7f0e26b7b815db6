import { describe, expect, it } from 'vitest';
import { signHubBody } from '../../src/channels/messenger/hub-signature.js';
import { scriptedModel } from '../support/scripted-model.js';
import { seedTenant, session, testSecretKeys } from '../support/workers-env.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { appWith } from './turn-helpers.js';
import {
  newPsid,
  postMessenger,
  seedMessengerTenant,
  textItem,
  turnIds,
  webhookBody,
  type MessengerTenant,
} from './messenger-helpers.js';

const app = appWith(scriptedModel([]));

function verify(t: MessengerTenant, query: Record<string, string>, tenantId = t.tenantId) {
  return app.fetch(new Request(`http://worker.test/v1/messenger/${tenantId}?${new URLSearchParams(query)}`));
}

describe('GET /v1/messenger/:tenant — the subscription check', () => {
  it('the right verify token echoes the challenge', async () => {
    const t = await seedMessengerTenant();
    const res = await verify(t, {
      'hub.mode': 'subscribe',
      'hub.verify_token': t.verifyToken,
      'hub.challenge': '1158201444',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('1158201444');
  });

  it("a wrong token, another tenant's token, a wrong mode or an unknown tenant is 403 and echoes nothing", async () => {
    const t = await seedMessengerTenant();
    const other = await seedMessengerTenant();
    const cases = [
      verify(t, { 'hub.mode': 'subscribe', 'hub.verify_token': `${t.verifyToken}x`, 'hub.challenge': '42' }),
      verify(t, { 'hub.mode': 'subscribe', 'hub.verify_token': other.verifyToken, 'hub.challenge': '42' }),
      verify(t, { 'hub.mode': 'unsubscribe', 'hub.verify_token': t.verifyToken, 'hub.challenge': '42' }),
      verify(
        t,
        { 'hub.mode': 'subscribe', 'hub.verify_token': t.verifyToken, 'hub.challenge': '42' },
        'no-such-tenant',
      ),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain('42');
    }
  });

  it('a missing parameter or a challenge that is not a plain token is 400 naming it', async () => {
    const t = await seedMessengerTenant();
    const missing = await verify(t, { 'hub.mode': 'subscribe', 'hub.verify_token': t.verifyToken });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain('hub.challenge');
    const html = await verify(t, {
      'hub.mode': 'subscribe',
      'hub.verify_token': t.verifyToken,
      'hub.challenge': '<script>',
    });
    expect(html.status).toBe(400);
  });
});

describe('POST /v1/messenger/:tenant — X-Hub-Signature-256 over the raw bytes', () => {
  it('a valid signature: 200 at once, the message counted and its turn run', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const a = appWith(scriptedModel([{ reply: { text: 'Hi!', escalate: false, confidence: 0.9, reason: 'r' } }]));
    const res = await postMessenger(a, t, webhookBody(t, [textItem(t, psid, `m_${psid}_1`, 'hello', Date.now())]));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: { messages: 1, presses: 0, ignored: 0 } });
    await a.settle();
    expect(await turnIds(t.tenantId)).toHaveLength(1);
  });

  it('altered body, wrong secret, missing header, sha1= only, a malformed header: 401 and nothing staged', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const body = JSON.stringify(webhookBody(t, [textItem(t, psid, `m_${psid}_2`, 'send me the brochure', Date.now())]));
    const signed = await signHubBody(body, t.appSecret);
    const a = appWith(scriptedModel([]));
    const attempts = [
      postMessenger(a, t, body.replace('brochure', 'Brochure'), { signOver: body }),
      postMessenger(a, t, body, { signWith: 'not-the-app-secret' }),
      postMessenger(a, t, body, { signWith: null }),
      postMessenger(a, t, body, { signWith: null, headers: { 'x-hub-signature': `sha1=${'0'.repeat(40)}` } }),
      postMessenger(a, t, body, {
        signWith: null,
        headers: { 'x-hub-signature-256': signed.replace('sha256=', 'sha1=') },
      }),
      postMessenger(a, t, body, { signWith: null, headers: { 'x-hub-signature-256': signed.slice(0, -2) } }),
    ];
    const answers = await Promise.all(attempts);
    for (const res of answers) expect(res.status).toBe(401);
    expect(((await answers[2]!.json()) as { error: string }).error).toBe('missing x-hub-signature-256 header');
    expect(((await answers[3]!.json()) as { error: string }).error).toContain('sha1');
    await a.settle();
    expect(await turnIds(t.tenantId)).toEqual([]);
  });

  it("another tenant's app secret, or a tenant with no Messenger secrets, is 401", async () => {
    const t = await seedMessengerTenant();
    const other = await seedMessengerTenant();
    const body = webhookBody(t, [textItem(t, '123', 'm_x', 'hi', Date.now())]);
    expect((await postMessenger(app, t, body, { signWith: other.appSecret })).status).toBe(401);
    expect((await postMessenger(app, { ...t, tenantId: 'no-such-tenant' }, body)).status).toBe(401);
    // A ManyChat-only tenant has no app secret: nothing can sign for it.
    const manyChatOnly = await seedTenant();
    expect(
      (
        await postMessenger(app, { ...t, tenantId: manyChatOnly.tenantId }, body, {
          signWith: 'no-secret-for-this-tenant',
        })
      ).status,
    ).toBe(401);
  });

  it('a body whose JSON re-serialises differently (escaped unicode, spacing) verifies over the raw bytes and fails when signed over the re-serialised form', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    // Meta's form: escaped unicode, its own spacing. JSON.stringify(JSON.parse(raw)) differs byte for byte.
    const raw = `{"object": "page", "entry": [ {"id": "${t.pageId}", "time": ${Date.now()}, "messaging": [ {"sender": {"id": "${psid}"}, "recipient": {"id": "${t.pageId}"}, "timestamp": ${Date.now()}, "message": {"mid": "m_${psid}_u", "text": "caf\\u00e9 \\ud83d\\ude00 \\u00fcber"}} ]} ]}`;
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect(reserialised).not.toBe(raw);
    expect(reserialised).toContain('café');
    const a = appWith(scriptedModel([{ reply: { text: 'Bonjour!', escalate: false, confidence: 0.9, reason: 'r' } }]));
    expect((await postMessenger(a, t, raw, { signOver: reserialised })).status).toBe(401);
    const ok = await postMessenger(a, t, raw);
    expect(ok.status).toBe(200);
    await a.settle();
    expect(await turnIds(t.tenantId)).toHaveLength(1);
  });

  it('with a valid signature, a body that is not a Messenger webhook is 400 naming the field', async () => {
    const t = await seedMessengerTenant();
    const bad = await postMessenger(app, t, { object: 'instagram', entry: [] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('object');
    const notJson = await postMessenger(app, t, '{"object": "page",');
    expect(notJson.status).toBe(400);
  });
});

describe('the app secret is read fresh on every webhook', () => {
  it('a rotated app secret counts from the next request: the old one is refused, the new one accepted', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const a = appWith(scriptedModel([{ reply: { text: 'Hi!', escalate: false, confidence: 0.9, reason: 'r' } }]));
    const body = webhookBody(t, [textItem(t, psid, `m_${psid}_rot`, 'hello', Date.now())]);
    // The isolate has seen the tenant (and would remember it).
    expect(
      (
        await postMessenger(
          a,
          t,
          webhookBody(t, [
            { sender: { id: psid }, recipient: { id: t.pageId }, timestamp: Date.now(), read: { watermark: 1 } },
          ]),
        )
      ).status,
    ).toBe(200);
    const rotated = `${t.appSecret}-rotated`;
    const saved = await saveTenant(
      session(),
      { ...demoTenantConfig(t.tenantId), tenantId: t.tenantId },
      {
        plain: {
          webhookSecret: `secret-${t.tenantId}`,
          manychatApiKey: '1:unused',
          messengerAppSecret: rotated,
          messengerPageAccessToken: t.pageToken,
          messengerVerifyToken: t.verifyToken,
        },
        keys: await testSecretKeys(),
      },
    );
    expect(saved.ok).toBe(true);
    expect((await postMessenger(a, t, body)).status).toBe(401);
    expect((await postMessenger(a, t, body, { signWith: rotated })).status).toBe(200);
    await a.settle();
  });
});
