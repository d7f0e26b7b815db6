import { inject, describe, expect, it } from 'vitest';
import { PAGE_INBOX_APP_ID } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { session, testSecretKeys, uniqueId, workerEnv } from '../support/workers-env.js';
import { appWith, type AppUnderTest } from './turn-helpers.js';
import {
  echoModel,
  postMessenger,
  sentTo,
  textItem,
  textOf,
  turnIds,
  type MessengerTenant,
} from './messenger-helpers.js';

/**
 * Issue 31, per-page tokens: a tenant lists several pages, each with its own sealed token, and a
 * reply goes out with the token of the page the contact wrote to. The Send API sandbox knows each
 * PSID on one page only and maps a token to its page, so a reply sent with the other page's token
 * is refused ("No matching user found") — as Meta's PSIDs are page-scoped.
 */
async function sandbox(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${inject('manychatUrl')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox refused ${path}: ${await res.text()}`);
}

const newPageId = () => String(3_000_000_000 + Math.floor(Math.random() * 1e9));

async function twoPageTenant(secrets: { firstViaLegacyToken: boolean }) {
  const tenantId = uniqueId('mp');
  const pages = [newPageId(), newPageId()] as const;
  const tokens = [`tok-1-${tenantId}`, `tok-2-${tenantId}`] as const;
  const appSecret = `app-secret-${tenantId}`;
  const base = demoTenantConfig(tenantId);
  const saved = await saveTenant(
    session(),
    {
      ...base,
      messenger: { ...base.messenger, handoverAppId: PAGE_INBOX_APP_ID, pages: [{ id: pages[0] }, { id: pages[1] }] },
    },
    {
      plain: {
        webhookSecret: `secret-${tenantId}`,
        manychatApiKey: '1:unused',
        messengerAppSecret: appSecret,
        messengerVerifyToken: `verify-${tenantId}`,
        ...(secrets.firstViaLegacyToken
          ? { messengerPageAccessToken: tokens[0], messengerPageTokens: { [pages[1]]: tokens[1] } }
          : { messengerPageTokens: { [pages[0]]: tokens[0], [pages[1]]: tokens[1] } }),
      },
      keys: await testSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  for (const [i, pageId] of pages.entries())
    await sandbox('/__sandbox/messenger-pages', { pageId, accessToken: tokens[i] });
  const tenantOf = (i: 0 | 1): MessengerTenant => ({
    tenantId,
    appSecret,
    verifyToken: `verify-${tenantId}`,
    pageToken: tokens[i],
    pageId: pages[i],
    adminSecret: '',
  });
  return { tenantId, pages, tenantOf };
}

async function psidOn(pageId: string): Promise<string> {
  const id = String(Math.floor(Math.random() * 1e15));
  await sandbox('/__sandbox/subscribers', { pageId, id });
  return id;
}

/** QStash's call of the delivery endpoint: the Worker's own clients, with the tenant's tokens. */
async function deliver(app: AppUnderTest, tenantId: string, turnId: string): Promise<Response> {
  const body = JSON.stringify({ tenantId, turnId });
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/outbox/deliver`;
  return app.fetch(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Upstash-Signature': await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body }),
      },
      body,
    }),
  );
}

describe('a tenant with several pages answers each contact with the token of the page it wrote to', () => {
  for (const firstViaLegacyToken of [false, true])
    it(`two pages, one webhook, one contact on each: both replies delivered (${firstViaLegacyToken ? 'first page on messengerPageAccessToken' : 'every page in messengerPageTokens'})`, async () => {
      const { tenantId, pages, tenantOf } = await twoPageTenant({ firstViaLegacyToken });
      const [one, two] = [tenantOf(0), tenantOf(1)];
      const psid1 = await psidOn(pages[0]);
      const psid2 = await psidOn(pages[1]);
      const app = appWith(echoModel());
      const now = Date.now();
      const res = await postMessenger(app, one, {
        object: 'page',
        entry: [
          { id: pages[0], time: now, messaging: [textItem(one, psid1, `m_${psid1}`, 'to page one', now)] },
          { id: pages[1], time: now, messaging: [textItem(two, psid2, `m_${psid2}`, 'to page two', now)] },
        ],
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: { messages: 2, presses: 0, ignored: 0 } });
      await app.settle();
      const turns = await turnIds(tenantId);
      expect(turns).toHaveLength(2);
      for (const turnId of turns) expect((await deliver(app, tenantId, turnId)).status).toBe(200);
      const [to1, to2] = [await sentTo(psid1), await sentTo(psid2)];
      expect(to1.map((m) => [m.status, textOf(m)])).toEqual([[200, 'You said: to page one']]);
      expect(to2.map((m) => [m.status, textOf(m)])).toEqual([[200, 'You said: to page two']]);
    });

  it('a page listed without a token of its own: its reply is refused before any call (dead, naming the page), nothing sent', async () => {
    const tenantId = uniqueId('mp');
    const pages = [newPageId(), newPageId()] as const;
    const base = demoTenantConfig(tenantId);
    const saved = await saveTenant(
      session(),
      {
        ...base,
        messenger: { ...base.messenger, handoverAppId: PAGE_INBOX_APP_ID, pages: pages.map((id) => ({ id })) },
      },
      {
        plain: {
          webhookSecret: `secret-${tenantId}`,
          manychatApiKey: '1:unused',
          messengerAppSecret: `app-secret-${tenantId}`,
          messengerPageAccessToken: `tok-1-${tenantId}`,
        },
        keys: await testSecretKeys(),
      },
    );
    if (!saved.ok) throw new Error(saved.problems.join('; '));
    await sandbox('/__sandbox/messenger-pages', { pageId: pages[0], accessToken: `tok-1-${tenantId}` });
    await sandbox('/__sandbox/messenger-pages', { pageId: pages[1], accessToken: `tok-2-${tenantId}` });
    const t: MessengerTenant = {
      tenantId,
      appSecret: `app-secret-${tenantId}`,
      verifyToken: '',
      pageToken: '',
      pageId: pages[1],
      adminSecret: '',
    };
    const psid2 = await psidOn(pages[1]);
    const app = appWith(echoModel());
    const now = Date.now();
    await postMessenger(app, t, {
      object: 'page',
      entry: [{ id: pages[1], time: now, messaging: [textItem(t, psid2, `m_${psid2}`, 'hi', now)] }],
    });
    await app.settle();
    const [turnId] = await turnIds(tenantId);
    const delivered = await deliver(app, tenantId, turnId!);
    const body = (await delivered.json()) as { actions: { state: string; detail?: string }[] };
    expect(body.actions[0]).toMatchObject({ state: 'dead' });
    expect(JSON.stringify(body.actions[0])).toContain(`no page access token for page ${pages[1]}`);
    expect(await sentTo(psid2)).toEqual([]);
  });
});
