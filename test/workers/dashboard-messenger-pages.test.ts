import { describe, expect, inject, it } from 'vitest';
import { messengerPageOwnerKey, tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { createApp } from '../../src/app.js';
import { loadTenant } from '../../src/tenants/tenant-store.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { session, testSecretKeys, uniqueId } from '../support/workers-env.js';
import { seedMessengerTenant } from './messenger-helpers.js';

/**
 * Issue 31: the tenant's Messenger pages and their tokens are set in the dashboard (Setup →
 * Secrets). A token is write-only (never shown back, never in the audit log) and is checked with
 * Meta (the Send API sandbox's `GET /me`) before it is saved: a token of another page, a token
 * Meta refuses and a badly copied token are each told in plain words next to the field, and
 * nothing is saved. Without network only the format is checked, and the person is told so.
 */
async function dashboardMessengerTenant() {
  const t = await seedMessengerTenant();
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  const client = new DashboardClient();
  expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
  return { t, client, password };
}

/** A second page of the Send API sandbox, with its own token. */
async function sandboxPage(): Promise<{ pageId: string; token: string }> {
  const pageId = String(3_100_000_000 + Math.floor(Math.random() * 1e9));
  const token = `EAAtest${uniqueId('tok').replace(/[^A-Za-z0-9]/g, '')}abcdefghij`;
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/messenger-pages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pageId, accessToken: token }),
  });
  expect(res.ok).toBe(true);
  return { pageId, token };
}

async function postPages(client: DashboardClient, change: Record<string, string>) {
  const { html } = await client.page('/dashboard/setup/secrets');
  const fields = { ...formFields(html, '/dashboard/setup/messenger-pages'), ...change };
  const res = await client.request('POST', '/dashboard/setup/messenger-pages', fields);
  return { res, html: await res.text() };
}

const storedConfig = async (tenantId: string) =>
  parseJson(await session().one((r) => r.get(tenantKeys(tenantId).config))) as {
    messenger: { pages: { id: string; name?: string }[] };
  };

describe('Messenger pages in the dashboard', () => {
  it('lists the pages with whether each has a token, never the token', async () => {
    const { t, client } = await dashboardMessengerTenant();
    const { res, html } = await client.page('/dashboard/setup/secrets');
    expect(res.status).toBe(200);
    expect(html).toContain('Messenger pages');
    expect(html).toContain(`value="${t.pageId}"`);
    expect(html).toContain('Page access token (set)');
    expect(html).not.toContain(t.pageToken);
  });

  it("adds a page with its token checked with Meta: sealed, the page indexed as the tenant's, and the token never shown or logged", async () => {
    const { t, client } = await dashboardMessengerTenant();
    const page = await sandboxPage();
    const { res } = await postPages(client, {
      page_id_1: page.pageId,
      page_name_1: 'Second shop',
      page_token_1: page.token,
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/setup/secrets?saved=pages');
    expect((await storedConfig(t.tenantId)).messenger.pages).toEqual([
      { id: t.pageId },
      { id: page.pageId, name: 'Second shop' },
    ]);
    const loaded = await loadTenant(session(), t.tenantId, await testSecretKeys());
    expect(loaded.found && 'secrets' in loaded && loaded.secrets?.messengerPageTokens?.[page.pageId]).toBe(page.token);
    const rawSecrets = String(await session().one((r) => r.get(tenantKeys(t.tenantId).secrets)));
    expect(rawSecrets).not.toContain(page.token);
    expect(await session().one((r) => r.get(messengerPageOwnerKey(page.pageId)))).toBe(t.tenantId);
    const { html } = await client.page('/dashboard/setup/secrets?saved=pages');
    expect(html).toContain('every new token was checked with Meta');
    expect(html).not.toContain(page.token);
    const audit = (await client.page('/dashboard/audit')).html;
    expect(audit).toContain('messenger.pages.changed');
    expect(audit).not.toContain(page.token);

    // Removing the page releases it from the index and drops its token.
    const removed = await postPages(client, { page_id_1: '', page_name_1: '' });
    expect(removed.res.status).toBe(303);
    expect((await storedConfig(t.tenantId)).messenger.pages).toEqual([{ id: t.pageId }]);
    expect(await session().one((r) => r.get(messengerPageOwnerKey(page.pageId)))).toBeNull();
    const after = await loadTenant(session(), t.tenantId, await testSecretKeys());
    expect(after.found && 'secrets' in after && after.secrets?.messengerPageTokens?.[page.pageId]).toBeFalsy();
  });

  it("refuses another page's token, a token Meta does not accept, a badly copied token and a page with no token, in plain words, saving nothing", async () => {
    const { t, client } = await dashboardMessengerTenant();
    const other = await sandboxPage();
    const mine = String(3_900_000_000 + Math.floor(Math.random() * 1e8));
    const before = await storedConfig(t.tenantId);
    const cases: [Record<string, string>, string][] = [
      [
        { page_id_1: mine, page_token_1: other.token },
        `This token belongs to page ${other.pageId} (Sandbox page ${other.pageId}), not page ${mine}: copy the token of page ${mine}.`,
      ],
      [
        { page_id_1: mine, page_token_1: 'EAAnotARealTokenAtAll1234567890' },
        `Meta does not accept this token (expired, revoked or not copied whole): generate a new page access token for page ${mine}`,
      ],
      [{ page_id_1: mine, page_token_1: 'EAA abc def ghi jkl mno pqr' }, 'The token has spaces or line breaks in it'],
      [{ page_id_1: mine }, `Page ${mine} has no token yet: paste its page access token.`],
      [{ page_id_1: 'my-shop', page_token_1: other.token }, "A page id is the page's number, digits only"],
    ];
    for (const [change, said] of cases) {
      const { res, html } = await postPages(client, change);
      expect(res.status, said).toBe(400);
      expect(html).toContain('Pages not saved: 1 problem (shown next to the fields).');
      expect(html.replace(/&#39;/g, "'").replace(/&quot;/g, '"')).toContain(said);
      expect(html).not.toContain(other.token);
    }
    expect(await storedConfig(t.tenantId)).toEqual(before);
    expect(await session().one((r) => r.get(messengerPageOwnerKey(mine)))).toBeNull();
  });

  it('refuses a page another tenant owns without naming that tenant', async () => {
    const { client } = await dashboardMessengerTenant();
    const owner = await seedMessengerTenant();
    const page = await sandboxPage();
    const { res, html } = await postPages(client, { page_id_1: owner.pageId, page_token_1: page.token });
    // The token is of another page than the one asked for: refused before the ownership check.
    expect(res.status).toBe(400);
    const sameToken = await postPages(client, { page_id_1: owner.pageId, page_token_1: owner.pageToken });
    expect(sameToken.res.status).toBe(400);
    expect(sameToken.html).toContain(`page ${owner.pageId} is already connected to another account`);
    expect(sameToken.html).not.toContain(owner.tenantId);
    expect(html).not.toContain(owner.tenantId);
  });

  it('checks only the format when Meta cannot be reached, and says so', async () => {
    const t = await seedMessengerTenant();
    const password = `pw-${uniqueId('p')}`;
    await setDashboardUser(session(), t.tenantId, 'owner', password);
    const app = createApp();
    // A Graph URL nothing listens on: the check cannot reach Meta.
    const offline = new DashboardClient({
      fetch: (req, env) => app.fetch(req, { ...env, MESSENGER_GRAPH_URL: 'http://127.0.0.1:9/v23.0' }),
    });
    expect((await offline.login(t.tenantId, 'owner', password)).status).toBe(303);
    const pageId = String(3_800_000_000 + Math.floor(Math.random() * 1e8));
    const { res } = await postPages(offline, { page_id_1: pageId, page_token_1: 'EAAwellFormedButUnchecked12345' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/setup/secrets?saved=pages-format');
    expect((await offline.page('/dashboard/setup/secrets?saved=pages-format')).html).toContain(
      'Meta could not be reached, so the new tokens were checked only for their format.',
    );
    const bad = await postPages(offline, { page_id_1: pageId, page_token_1: 'short' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('The token is too short (5 characters) to be a page access token');
  });
});
