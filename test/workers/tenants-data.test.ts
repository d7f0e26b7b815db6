import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { scanPrefix } from '../../src/tenants/provisioning.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, testSecretKeys, workerEnv } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, turnRecord } from './turn-helpers.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { createApp } from '../../src/app.js';

/** Every value under the tenant's prefix, as text (strings, lists, sets, sorted sets, hashes). */
async function everything(tenantId: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const key of await scanPrefix(session(), `t:${tenantId}:`)) {
    const type = await session().one((r) => r.type(key));
    const value =
      type === 'string'
        ? await session().one((r) => r.get(key))
        : type === 'list'
          ? await session().one((r) => r.lrange(key, 0, -1))
          : type === 'set'
            ? await session().one((r) => r.smembers(key))
            : type === 'zset'
              ? await session().one((r) => r.zrange(key, 0, -1))
              : await session().one((r) => r.hgetall(key));
    out.set(key, `${key} ${JSON.stringify(value)}`);
  }
  return out;
}

describe("a contact's data deleted on request", () => {
  it("leaves none of the contact's words in Redis: history, turns, outbox, a pending confirmation, handoff", async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const contactId = await newContact();
    const other = await newContact();
    const words = 'zebra-quartz-marmalade';
    const model = scriptedModel([
      {
        calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
        reply: reply(`The brochure is on its way, ${words} fan.`),
      },
      {
        calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
        reply: reply('Shall I note pilates?'),
      },
      { reply: reply('I need a human', { escalate: true }) },
      { reply: reply('Hello other contact.') },
    ]);
    const app = appWith(model);
    await app.post(tenantId, secret, { contact: { id: contactId }, text: `send the brochure please ${words}` });
    await app.post(tenantId, secret, { contact: { id: contactId }, text: `I prefer pilates ${words}` });
    await app.post(tenantId, secret, { contact: { id: contactId }, text: `human please ${words}` });
    const kept = await app.post(tenantId, secret, { contact: { id: other }, text: 'hello there' });
    await app.settle();
    const before = [...(await everything(tenantId)).values()].filter((v) => v.includes(words));
    expect(before.length).toBeGreaterThan(3);

    const res = await tenantApi(tenantId, adminSecret, 'DELETE', `/contacts/${contactId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ turns: 3, rows: 1 });
    const after = [...(await everything(tenantId)).values()];
    expect(after.filter((v) => v.includes(words))).toEqual([]);
    expect(after.filter((v) => v.includes(`:${contactId}`) || v.includes(`"contactId":"${contactId}"`))).toEqual([]);
    // The other contact's turn is untouched, and the deletion is audited without the words.
    expect((await turnRecord(tenantId, kept.headers.get('x-turn-id')!)).contactId).toBe(other);
    const audit = await (await tenantApi(tenantId, adminSecret, 'GET', '/audit')).text();
    expect(audit).toContain('contact.deleted');
    expect(audit).not.toContain(words);
  });
});

describe("Meta's data-deletion callback", () => {
  async function signedRequest(payload: object, secret: string): Promise<string> {
    const b64url = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replaceAll('+', '-')
        .replaceAll('/', '_')
        .replace(/=+$/, '');
    const body = b64url(new TextEncoder().encode(JSON.stringify(payload)));
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)));
    return `${b64url(sig)}.${body}`;
  }
  const call = (tenantId: string, signed: string) =>
    createApp().fetch(
      new Request(`http://worker.test/v1/messenger/${tenantId}/data-deletion`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ signed_request: signed }).toString(),
      }),
      workerEnv,
    );

  it("a signed request deletes the person's data and answers a status URL and code; a forged one is 401", async () => {
    const { tenantId, secret } = await seedTenant();
    await saveTenant(
      session(),
      { ...demoTenantConfig(tenantId), tenantId },
      {
        plain: { webhookSecret: secret, manychatApiKey: '1:k', messengerAppSecret: 'meta-app-secret' },
        keys: await testSecretKeys(),
      },
    );
    const contactId = await newContact();
    await appWith(scriptedModel([{ reply: reply('Hello!') }])).post(tenantId, secret, {
      contact: { id: contactId },
      text: 'remember me please',
    });
    expect(await session().one((r) => r.llen(tenantKeys(tenantId).history(contactId)))).toBe(2);

    expect(
      (await call(tenantId, await signedRequest({ algorithm: 'HMAC-SHA256', user_id: contactId }, 'not-the-secret')))
        .status,
    ).toBe(401);
    expect((await call(tenantId, 'garbage')).status).toBe(401);
    const res = await call(
      tenantId,
      await signedRequest({ algorithm: 'HMAC-SHA256', user_id: contactId, issued_at: 1 }, 'meta-app-secret'),
    );
    expect(res.status).toBe(200);
    const { url, confirmation_code } = (await res.json()) as { url: string; confirmation_code: string };
    expect(url).toBe(
      `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/messenger/${tenantId}/data-deletion/${confirmation_code}`,
    );
    expect(await session().one((r) => r.exists(tenantKeys(tenantId).history(contactId)))).toBe(0);
    const status = await createApp().fetch(
      new Request(`http://worker.test/v1/messenger/${tenantId}/data-deletion/${confirmation_code}`),
      workerEnv,
    );
    expect(await status.json()).toMatchObject({
      confirmation_code,
      status: 'complete',
      found: true,
      detail: expect.stringMatching(/^Deleted: 1 conversation turns/),
    });

    // An id nothing is stored under (Meta's app-scoped id, where the contact is kept under its
    // page-scoped one): the status does not pretend something was erased.
    const unknown = await call(
      tenantId,
      await signedRequest({ algorithm: 'HMAC-SHA256', user_id: 'asid-0000001' }, 'meta-app-secret'),
    );
    const second = (await unknown.json()) as { confirmation_code: string };
    const none = await createApp().fetch(
      new Request(`http://worker.test/v1/messenger/${tenantId}/data-deletion/${second.confirmation_code}`),
      workerEnv,
    );
    expect(await none.json()).toMatchObject({
      status: 'complete',
      found: false,
      detail: expect.stringContaining('No data was stored under this id'),
    });
  });
});

describe('retention', () => {
  it("every key holding a contact's words expires within the tenant's retention", async () => {
    const { tenantId, secret } = await seedTenant({ retentionDays: 2 });
    const contactId = await newContact();
    const res = await appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'yoga' } }],
          reply: reply('Shall I note yoga?'),
        },
      ]),
    ).post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer yoga' });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    const k = tenantKeys(tenantId);
    const twoDays = 2 * 24 * 3600;
    for (const key of [
      k.turn(record.turnId),
      k.history(contactId),
      k.pinnedTerms(record.pendingConfirmation!),
      k.contactTurns(contactId),
    ]) {
      const ttl = await session().one((r) => r.ttl(key));
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(twoDays);
    }
  });
});
