import { afterEach, describe, expect, it, vi } from 'vitest';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { SESSION_COOKIE_NAME } from '../../src/dashboard/auth/sessions.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { DEMO_MANYCHAT_API_KEY } from '../../dev/demo-tenant.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient, formFields, ORIGIN } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { appWith, turnRecord } from './turn-helpers.js';

/** A tenant with a dashboard user, a committed turn and a pending approval (a destructive untag). */
async function tenantWithData(name: string) {
  const t = await seedTenant({ displayName: `Studio ${name} ${uniqueId('n')}` });
  const user = `owner-${name}`;
  const password = `password-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, user, password);
  const contactId = await newContact();
  const model = scriptedModel([
    {
      calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
      reply: reply('A team member will review removing the tag.'),
    },
  ]);
  const res = await appWith(model).post(t.tenantId, t.secret, {
    contact: { id: contactId, first_name: 'Ada' },
    text: `please remove my interested tag ${name}`,
  });
  const record = await turnRecord(t.tenantId, res.headers.get('x-turn-id')!);
  expect(record.approvals).toHaveLength(1);
  return { ...t, user, password, contactId, turnId: record.turnId, approvalId: record.approvals[0]! };
}

async function loggedIn(t: { tenantId: string; user: string; password: string }): Promise<DashboardClient> {
  const client = new DashboardClient();
  expect((await client.login(t.tenantId, t.user, t.password)).status).toBe(303);
  expect(client.csrf).toMatch(/^[0-9a-f]{64}$/);
  return client;
}

const storedConfig = async (tenantId: string) =>
  parseJson(await session().one((r) => r.get(tenantKeys(tenantId).config))) as Record<string, unknown>;

describe('dashboard login', () => {
  it('sets a signed __Host- session cookie: HttpOnly, Secure, SameSite=Lax, Path=/, with an expiry', async () => {
    const a = await tenantWithData('a');
    const client = new DashboardClient();
    const res = await client.request('POST', '/dashboard/login', {
      tenant: a.tenantId,
      user: a.user,
      password: a.password,
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie.startsWith(`${SESSION_COOKIE_NAME}=`)).toBe(true);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    expect(cookie).toMatch(/; Max-Age=28800/);
    expect(cookie).not.toMatch(/Domain=/i);
    // The pages carry the secure headers and a no-script CSP.
    const page = await client.request('GET', '/dashboard/setup');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it("refuses a wrong password, an unknown user and another tenant's user alike", async () => {
    const a = await tenantWithData('a');
    const b = await tenantWithData('b');
    for (const [tenant, user, password] of [
      [a.tenantId, a.user, 'wrong-password'],
      [a.tenantId, 'nobody', a.password],
      [a.tenantId, b.user, b.password],
    ] as const) {
      const client = new DashboardClient();
      const res = await client.request('POST', '/dashboard/login', { tenant, user, password });
      expect(res.status).toBe(401);
      expect(client.cookie).toBe('');
      expect(await res.text()).toContain('Wrong tenant, user or password.');
    }
  });

  it('limits login attempts per user (429 with Retry-After), even with the right password', async () => {
    const a = await tenantWithData('a');
    const client = new DashboardClient();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await client.request('POST', '/dashboard/login', { tenant: a.tenantId, user: a.user, password: 'wrong' }))
          .status,
      );
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    const right = await client.request('POST', '/dashboard/login', {
      tenant: a.tenantId,
      user: a.user,
      password: a.password,
    });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(client.cookie).toBe('');
  });

  it('logout revokes the session on the server: a copy of the old cookie no longer works', async () => {
    const a = await tenantWithData('a');
    const client = await loggedIn(a);
    const stolen = client.cookie;
    expect((await client.post('/dashboard/logout')).status).toBe(303);
    const replay = new DashboardClient();
    replay.cookie = stolen;
    const res = await replay.request('GET', '/dashboard/setup');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/login');
  });

  it('a cookie edited to name another tenant fails its signature', async () => {
    const a = await tenantWithData('a');
    const b = await tenantWithData('b');
    const client = await loggedIn(a);
    client.cookie = client.cookie.replace(`=${a.tenantId}.`, `=${b.tenantId}.`);
    expect(client.cookie).toContain(b.tenantId);
    const res = await client.request('GET', '/dashboard/setup');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/login');
  });
});

describe('dashboard sessions across a rotation of SESSION_SECRET', () => {
  const NEXT = 'dashboard-rotation-session-secret-0123456789';

  it('an open session keeps working while the previous secret is kept, and ends once it is removed', async () => {
    const a = await tenantWithData('a');
    const client = await loggedIn(a);
    client.env = { ...workerEnv, SESSION_SECRET: NEXT, SESSION_SECRET_PREVIOUS: workerEnv.SESSION_SECRET! };
    expect((await client.request('GET', '/dashboard/setup')).status).toBe(200);
    client.env = { ...workerEnv, SESSION_SECRET: NEXT };
    const res = await client.request('GET', '/dashboard/setup');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/login');
  });

  it('a login during the rotation is signed with the new secret only', async () => {
    const a = await tenantWithData('a');
    const client = new DashboardClient();
    client.env = { ...workerEnv, SESSION_SECRET: NEXT, SESSION_SECRET_PREVIOUS: workerEnv.SESSION_SECRET! };
    expect((await client.login(a.tenantId, a.user, a.password)).status).toBe(303);
    client.env = { ...workerEnv, SESSION_SECRET: NEXT };
    expect((await client.request('GET', '/dashboard/setup')).status).toBe(200);
    client.env = workerEnv;
    expect((await client.request('GET', '/dashboard/setup')).status).toBe(303);
  });
});

describe("tenant isolation: A's session never reads or changes B's data", () => {
  it("config: A's pages show A's config only; a save naming B in the form writes A's config, never B's", async () => {
    const a = await tenantWithData('a');
    const b = await tenantWithData('b');
    const client = await loggedIn(a);
    const { html } = await client.page('/dashboard/setup/persona');
    expect(html).toContain(String((await storedConfig(a.tenantId)).displayName));
    expect(html).not.toContain(String((await storedConfig(b.tenantId)).displayName));
    const bBefore = await storedConfig(b.tenantId);
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    const res = await client.post('/dashboard/setup/save', {
      rev,
      config: JSON.stringify({ ...bBefore, tenantId: b.tenantId, displayName: 'Hijacked by A' }),
      tenant: b.tenantId,
      tenantId: b.tenantId,
    });
    expect(res.status).toBe(303);
    expect(await storedConfig(b.tenantId)).toEqual(bBefore);
    expect((await storedConfig(a.tenantId)).displayName).toBe('Hijacked by A');
    expect((await storedConfig(a.tenantId)).tenantId).toBe(a.tenantId);
    // A tenant in the URL is not a thing the dashboard reads.
    const byUrl = await client.request('GET', `/dashboard/${b.tenantId}/setup`);
    expect(byUrl.status).toBe(404);
  });

  it("turns: B's turn by URL, by search and by guessed ids is not found", async () => {
    const a = await tenantWithData('a');
    const b = await tenantWithData('b');
    const client = await loggedIn(a);
    expect((await client.page(`/dashboard/turns/${a.turnId}`)).res.status).toBe(200);
    const byUrl = await client.page(`/dashboard/turns/${b.turnId}`);
    expect(byUrl.res.status).toBe(404);
    expect(byUrl.html).not.toContain('remove my interested tag b');
    const search = await client.page(`/dashboard/turns?q=${b.contactId}`);
    expect(search.html).not.toContain(b.turnId);
    const list = await client.page('/dashboard/turns');
    expect(list.html).toContain(a.turnId);
    expect(list.html).not.toContain(b.turnId);
    for (const guess of [
      'turn_00000000000000000000000000000000',
      `${b.turnId.slice(0, -1)}0`,
      '../../t:x',
      'x'.repeat(300),
    ]) {
      expect((await client.request('GET', `/dashboard/turns/${encodeURIComponent(guess)}`)).status).toBe(404);
    }
    // Re-driving B's outbox entry from A's turn page is refused.
    const redrive = await client.post(`/dashboard/turns/${a.turnId}/redrive`, {
      entryId: b.turnId,
      actionId: `${b.turnId}.a1`,
    });
    expect(redrive.status).toBe(303);
    expect(decodeURIComponent(redrive.headers.get('location')!)).toContain('not part of this turn');
  });

  it("approvals: A sees only A's queue; approving or rejecting B's approval by URL does nothing", async () => {
    const a = await tenantWithData('a');
    const b = await tenantWithData('b');
    const client = await loggedIn(a);
    const { html } = await client.page('/dashboard/approvals');
    expect(html).toContain(a.approvalId);
    expect(html).not.toContain(b.approvalId);
    expect((await client.page(`/dashboard/approvals/${b.approvalId}/confirm`)).res.status).toBe(404);
    for (const action of ['approve', 'reject']) {
      const res = await client.post(`/dashboard/approvals/${b.approvalId}/${action}`, {
        confirm: 'yes',
        tenant: b.tenantId,
      });
      expect(res.headers.get('location')).toBe('/dashboard/approvals?result=not-found');
    }
    expect((await loadPinned(session(), b.tenantId, b.approvalId))?.status).toBe('pending');
    const guessed = await client.post('/dashboard/approvals/ap_00000000000000000000000000000000/approve', {
      confirm: 'yes',
    });
    expect(guessed.headers.get('location')).toBe('/dashboard/approvals?result=not-found');
  });
});

describe('CSRF', () => {
  it('a form post without the session token is refused (403) and changes nothing', async () => {
    const a = await tenantWithData('a');
    const client = await loggedIn(a);
    const res = await client.request('POST', `/dashboard/approvals/${a.approvalId}/reject`, {});
    expect(res.status).toBe(403);
    const wrong = await client.request('POST', `/dashboard/approvals/${a.approvalId}/reject`, {
      _csrf: '0'.repeat(64),
    });
    expect(wrong.status).toBe(403);
    expect((await loadPinned(session(), a.tenantId, a.approvalId))?.status).toBe('pending');
  });

  it('a cross-site form post is refused even with the token (Hono csrf: Origin / Sec-Fetch-Site)', async () => {
    const a = await tenantWithData('a');
    const client = await loggedIn(a);
    const res = await client.request(
      'POST',
      `/dashboard/approvals/${a.approvalId}/reject`,
      { _csrf: client.csrf },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(res.status).toBe(403);
    expect((await loadPinned(session(), a.tenantId, a.approvalId))?.status).toBe('pending');
    // The same post from the dashboard's own origin works.
    const ok = await client.post(`/dashboard/approvals/${a.approvalId}/reject`);
    expect(ok.headers.get('location')).toBe('/dashboard/approvals?result=rejected');
  });
});

describe('no secret in any page, response or log line', () => {
  afterEach(() => vi.restoreAllMocks());

  it('renders every page and finds none of the tenant secrets, the Worker keys or the password', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    const a = await tenantWithData('a');
    const client = new DashboardClient();
    const failed = await client.request('POST', '/dashboard/login', {
      tenant: a.tenantId,
      user: a.user,
      password: `${a.password}-typo`,
    });
    expect(failed.status).toBe(401);
    const bodies: string[] = [await failed.text()];
    const login = await client.login(a.tenantId, a.user, a.password);
    bodies.push(await login.text(), login.headers.get('set-cookie') ?? '');
    const pages = [
      '/dashboard/setup',
      '/dashboard/approvals',
      `/dashboard/approvals/${a.approvalId}/confirm`,
      '/dashboard/turns',
      `/dashboard/turns/${a.turnId}`,
      '/dashboard/health',
      '/dashboard/try',
      '/dashboard/replay',
      '/dashboard/api',
      '/dashboard/api/openapi.json',
      '/dashboard/audit',
      '/dashboard/setup/channels',
      '/dashboard/setup/persona',
      '/dashboard/setup/catalogue',
      '/dashboard/setup/tools',
      '/dashboard/setup/secrets',
      '/dashboard/setup/import',
    ];
    for (const path of pages) {
      const { res, html } = await client.page(path);
      expect(res.status, path).toBe(200);
      bodies.push(html, [...res.headers].map(([k, v]) => (k === 'set-cookie' ? '' : `${k}: ${v}`)).join('\n'));
    }
    const rev = /name="rev" value="(\d+)"/.exec(bodies.find((b) => b.includes('name="rev"'))!)![1]!;
    // A replay's report (the stored config is its starting candidate) shows no secret either.
    const replayPage = bodies.find((b) => b.includes('action="/dashboard/replay"'))!;
    const replayed = await client.post('/dashboard/replay', { ...formFields(replayPage, '/dashboard/replay') });
    expect(replayed.status).toBe(200);
    bodies.push(await replayed.text());
    const preview = await client.post('/dashboard/setup/preview', { rev, section: 'persona', displayName: 'x' });
    bodies.push(await preview.text());
    const check = await client.post('/dashboard/setup/check-manychat');
    expect(await check.clone().text()).toContain('The ManyChat key works');
    bodies.push(await check.text());
    const secretsSave = await client.post('/dashboard/setup/secrets', {
      rev,
      manychatApiKey: '1000001:brand-new-manychat-key',
    });
    expect(secretsSave.status).toBe(303);
    bodies.push((await client.page('/dashboard/setup/secrets')).html);
    const secrets = [
      a.secret,
      a.adminSecret,
      DEMO_MANYCHAT_API_KEY,
      '1000001:brand-new-manychat-key',
      a.password,
      workerEnv.SESSION_SECRET!,
      workerEnv.SECRETS_HASH_KEY!,
      workerEnv.SECRETS_ENCRYPTION_KEYS!.split(':')[1]!,
      workerEnv.UPSTASH_REDIS_REST_TOKEN!,
      workerEnv.QSTASH_TOKEN!,
    ];
    for (const secret of secrets) {
      for (const body of bodies)
        expect(body.includes(secret), `a page contains a secret (${secret.slice(0, 4)}…)`).toBe(false);
      for (const line of lines)
        expect(line.includes(secret), `a log line contains a secret (${secret.slice(0, 4)}…)`).toBe(false);
    }
    // The secrets page says whether a secret is set, never what it is; and the new key was stored sealed.
    const stored = (await session().one((r) => r.get(tenantKeys(a.tenantId).secrets))) as string;
    expect(stored).not.toContain('brand-new-manychat-key');
  });
});

describe('the login page', () => {
  it('is reachable without a session and every other page sends you to it', async () => {
    const client = new DashboardClient();
    const login = await client.page('/dashboard/login');
    expect(login.res.status).toBe(200);
    expect(login.html).toMatch(/<label for="password">/);
    for (const path of ['/dashboard/setup', '/dashboard/turns', '/dashboard/approvals']) {
      const res = await client.request('GET', path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/dashboard/login');
    }
    expect((await client.request('POST', '/dashboard/setup/save', { config: '{}' }, { origin: ORIGIN })).status).toBe(
      401,
    );
  });
});
