import { describe, expect, it } from 'vitest';
import { OPERATOR_AUDIT_KEY, TENANT_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { secretKeysFrom } from '../../core/tenant/tenant-secrets.js';
import { createApp } from '../../src/app.js';
import { loadTenant } from '../../src/tenants/tenant-store.js';
import { reencryptAll, scanPrefix } from '../../src/tenants/provisioning.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, session, testSecretKeys, uniqueId, workerEnv } from '../support/workers-env.js';
import { appWith } from './turn-helpers.js';

const OPERATOR = workerEnv.OPERATOR_SECRET!;
const app = createApp();
const op = (method: string, path: string, body?: unknown, secret = OPERATOR) =>
  app.fetch(
    new Request(`http://worker.test/v1/operator${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    workerEnv,
  );
const tenantId = () =>
  uniqueId('op')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 60);

const MANYCHAT_KEY = '1000001:demo-manychat-key';
const MESSENGER = {
  appSecret: 'meta-app-secret-ABCDEF123456',
  pageAccessToken: 'EAAB-page-access-token-XYZ789',
  verifyToken: 'verify-token-QRS456',
};

async function create(id = tenantId()) {
  const res = await op('POST', '/tenants', { tenantId: id, manychatApiKey: MANYCHAT_KEY, messenger: MESSENGER });
  expect(res.status).toBe(201);
  return { tenantId: id, ...((await res.json()) as { webhookSecret: string; adminSecret: string }) };
}

const hello = () =>
  scriptedModel([{ reply: reply('Hello!') }, { reply: reply('Hello again!') }, { reply: reply('Hi!') }]);

describe('operator API', () => {
  it('refuses a wrong operator secret, no secret, and a tenant admin secret', async () => {
    const t = await create();
    expect((await op('GET', '/tenants', undefined, 'wrong')).status).toBe(401);
    expect((await app.fetch(new Request('http://worker.test/v1/operator/tenants'), workerEnv)).status).toBe(401);
    expect((await op('GET', '/tenants', undefined, t.adminSecret)).status).toBe(401);
    expect((await op('GET', '/tenants', undefined, t.webhookSecret)).status).toBe(401);
  });

  it('create: secrets shown once (256 bits), the webhook answers with them, a second create of the id is refused', async () => {
    const t = await create();
    expect(t.webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.adminSecret).not.toBe(t.webhookSecret);
    const res = await appWith(hello()).post(t.tenantId, t.webhookSecret, {
      contact: { id: await newContact() },
      text: 'hi',
    });
    expect(res.status).toBe(200);
    expect((await op('POST', '/tenants', { tenantId: t.tenantId, manychatApiKey: 'x' })).status).toBe(409);
    const shown = (await (await op('GET', `/tenants/${t.tenantId}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ tenantId: t.tenantId, status: 'active', secrets: { messenger: true } });
    expect(JSON.stringify(shown)).not.toContain(t.webhookSecret);
    expect((await op('POST', '/tenants', { tenantId: 'Bad:Id', manychatApiKey: 'x' })).status).toBe(400);
  });

  it('no secret is stored in plain text: every key of the tenant, and the global keys (index, operator audit), hold none of them', async () => {
    const t = await create();
    const rotated = (await (
      await op('POST', `/tenants/${t.tenantId}/rotate`, { secret: 'admin', overlapMinutes: 1 })
    ).json()) as { value: string };
    const secrets = [
      t.webhookSecret,
      t.adminSecret,
      rotated.value,
      MANYCHAT_KEY,
      MESSENGER.appSecret,
      MESSENGER.pageAccessToken,
      MESSENGER.verifyToken,
    ];
    const keys = [...(await scanPrefix(session(), `t:${t.tenantId}:`)), TENANT_INDEX_KEY, OPERATOR_AUDIT_KEY];
    expect(keys.length).toBeGreaterThan(2);
    for (const key of keys) {
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
      const text = JSON.stringify(value);
      for (const secret of secrets) expect(text, `${key} holds a secret`).not.toContain(secret);
    }
    // …and they still open with the Worker's keys.
    const loaded = await loadTenant(session(), t.tenantId, await testSecretKeys());
    expect(loaded.found && 'secrets' in loaded && loaded.secrets).toMatchObject({
      manychatApiKey: MANYCHAT_KEY,
      messengerAppSecret: MESSENGER.appSecret,
      messengerVerifyToken: MESSENGER.verifyToken,
    });
  });

  it('a leaked ManyChat key or Messenger secret is replaced write-only: sealed, never shown back, the others kept; an empty body names what it needs', async () => {
    const t = await create();
    const NEW_KEY = '1000001:replaced-manychat-key-789';
    const NEW_APP_SECRET = 'meta-app-secret-REPLACED-000';
    const res = await op('PUT', `/tenants/${t.tenantId}/secrets`, {
      manychatApiKey: NEW_KEY,
      messenger: { appSecret: NEW_APP_SECRET },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ tenantId: t.tenantId, replaced: ['manychatApiKey', 'messengerAppSecret'] });
    expect(text).not.toContain(NEW_KEY);
    const loaded = await loadTenant(session(), t.tenantId, await testSecretKeys());
    expect(loaded.found && 'secrets' in loaded && loaded.secrets).toMatchObject({
      manychatApiKey: NEW_KEY,
      messengerAppSecret: NEW_APP_SECRET,
      messengerVerifyToken: MESSENGER.verifyToken,
    });
    const stored = JSON.stringify(await session().one((r) => r.get(tenantKeys(t.tenantId).secrets)));
    expect(stored).not.toContain(NEW_KEY);
    expect(stored).not.toContain(NEW_APP_SECRET);
    const audit = JSON.stringify(await session().one((r) => r.lrange(OPERATOR_AUDIT_KEY, 0, 5)));
    expect(audit).toContain('replaced: manychatApiKey, messengerAppSecret');
    expect(audit).not.toContain(NEW_KEY);

    // A Slack incoming-webhook URL (a credential) is sealed the same way; a non-https one is refused.
    const SLACK = 'https://hooks.slack.com/services/T0/B0/sealed-by-operator-42';
    const slack = await op('PUT', `/tenants/${t.tenantId}/secrets`, { notificationUrl: SLACK });
    expect(slack.status).toBe(200);
    expect(await slack.json()).toEqual({ tenantId: t.tenantId, replaced: ['notificationUrl'] });
    const withUrl = await loadTenant(session(), t.tenantId, await testSecretKeys());
    expect(withUrl.found && 'secrets' in withUrl && withUrl.secrets?.notificationUrl).toBe(SLACK);
    expect(JSON.stringify(await session().one((r) => r.get(tenantKeys(t.tenantId).secrets)))).not.toContain(
      'sealed-by-operator-42',
    );
    expect((await op('PUT', `/tenants/${t.tenantId}/secrets`, { notificationUrl: 'http://x.example/h' })).status).toBe(
      400,
    );

    const empty = await op('PUT', `/tenants/${t.tenantId}/secrets`, {});
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('name at least one secret to replace');
    expect((await op('PUT', '/tenants/no-such-tenant-x/secrets', { manychatApiKey: 'k' })).status).toBe(404);
    expect((await op('PUT', `/tenants/${t.tenantId}/secrets`, { manychatApiKey: 'k' }, t.adminSecret)).status).toBe(
      401,
    );
  });

  it('rotation: both secrets work inside the overlap window, only the new one after it', async () => {
    const t = await create();
    const post = (secret: string) =>
      appWith(hello()).post(t.tenantId, secret, { contact: { id: '7' }, text: `hi ${secret.slice(0, 4)}` });
    const rotated = (await (
      await op('POST', `/tenants/${t.tenantId}/rotate`, { secret: 'webhook', overlapMinutes: 5 })
    ).json()) as { value: string };
    expect((await post(t.webhookSecret)).status).toBe(200);
    expect((await post(rotated.value)).status).toBe(200);
    // A second rotation with no overlap: the window is over at once.
    const again = (await (
      await op('POST', `/tenants/${t.tenantId}/rotate`, { secret: 'webhook', overlapMinutes: 0 })
    ).json()) as { value: string };
    expect((await post(rotated.value)).status).toBe(401);
    expect((await post(t.webhookSecret)).status).toBe(401);
    expect((await post(again.value)).status).toBe(200);
    const audit = (await (
      await app.fetch(
        new Request(`http://worker.test/v1/tenants/${t.tenantId}/audit`, {
          headers: { authorization: `Bearer ${t.adminSecret}` },
        }),
        workerEnv,
      )
    ).json()) as { entries: { action: string; actor: string }[] };
    expect(audit.entries.map((e) => e.action)).toEqual(['secret.rotated', 'secret.rotated', 'tenant.created']);
    expect(JSON.stringify(audit)).not.toContain(again.value);
  });

  it('suspend: a polite reply and no model call; resume: answered again; its outbox keeps draining', async () => {
    const t = await create();
    expect((await op('POST', `/tenants/${t.tenantId}/suspend`)).status).toBe(200);
    const model = hello();
    const res = await appWith(model).post(t.tenantId, t.webhookSecret, { contact: { id: '8' }, text: 'hi' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tenant-suspended')).toBe('1');
    expect(((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toContain(
      "can't reply",
    );
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).turnLog))).toBe(0);
    await op('POST', `/tenants/${t.tenantId}/resume`);
    expect(
      (await appWith(model).post(t.tenantId, t.webhookSecret, { contact: { id: '8' }, text: 'hi again' })).headers.get(
        'x-tenant-suspended',
      ),
    ).toBeNull();
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('delete: every key with its prefix is gone, and its secrets are refused', async () => {
    const t = await create();
    await appWith(hello()).post(t.tenantId, t.webhookSecret, { contact: { id: '9' }, text: 'hi' });
    expect((await scanPrefix(session(), `t:${t.tenantId}:`)).length).toBeGreaterThan(3);
    const res = await op('DELETE', `/tenants/${t.tenantId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ remaining: 0 });
    expect(await scanPrefix(session(), `t:${t.tenantId}:`)).toEqual([]);
    expect(
      (await appWith(hello()).post(t.tenantId, t.webhookSecret, { contact: { id: '9' }, text: 'hi' })).status,
    ).toBe(401);
    expect(
      (
        await app.fetch(
          new Request(`http://worker.test/v1/tenants/${t.tenantId}/config`, {
            headers: { authorization: `Bearer ${t.adminSecret}` },
          }),
          workerEnv,
        )
      ).status,
    ).toBe(401);
  });

  it('key rotation: a new key first in the ring, re-encryption seals everything with it, and then the old key can go; a missing key fails loudly', async () => {
    const t = await create();
    const oldKeys = await testSecretKeys();
    const newRing = `k9:${btoa(String.fromCharCode(...new Uint8Array(32).fill(9)))},${workerEnv.SECRETS_ENCRYPTION_KEYS!}`;
    const both = await secretKeysFrom(newRing, workerEnv.SECRETS_HASH_KEY!);
    // Scoped to this tenant: the shared test Redis holds other files' tenants.
    const result = await reencryptAll(session(), both, [t.tenantId]);
    expect(result).toEqual({ tenants: 1, resealed: 1 });
    const onlyNew = await secretKeysFrom(newRing.split(',')[0]!, workerEnv.SECRETS_HASH_KEY!);
    const opened = await loadTenant(session(), t.tenantId, onlyNew);
    expect(opened.found && 'secrets' in opened && opened.secrets?.manychatApiKey).toBe(MANYCHAT_KEY);
    // The Worker's own ring no longer holds k9: loading fails loudly, naming the key, never silently empty.
    await expect(loadTenant(session(), t.tenantId, oldKeys)).rejects.toThrow(/sealed with key "k9"/);
    const res = await appWith(hello()).post(t.tenantId, t.webhookSecret, { contact: { id: '3' }, text: 'hi' });
    // Before authentication: the 401 everyone unauthenticated gets, and no key id (issue 28, item 11); the log names it.
    expect(res.status).toBe(401);
    const error = ((await res.json()) as { error: string }).error;
    expect(error).toBe('the request could not be authenticated');
    expect(error).not.toContain('k9');
    await op('DELETE', `/tenants/${t.tenantId}`);
  });
});
