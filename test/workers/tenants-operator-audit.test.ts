import { describe, expect, it } from 'vitest';
import { OPERATOR_AUDIT_KEY } from '../../core/storage/keys.js';
import { createApp } from '../../src/app.js';
import { scanPrefix } from '../../src/tenants/provisioning.js';
import { session, uniqueId, workerEnv } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';

/**
 * The operator's audit log (issue 13): every operator action, with who, when and what, on a log
 * outside every tenant's prefix — so a tenant's deletion, which takes the tenant's own log with
 * it, stays on record. Read paged through `GET /v1/operator/audit`, with the operator secret only.
 */
const OPERATOR = workerEnv.OPERATOR_SECRET!;
const app = createApp();
const call = (method: string, path: string, body?: unknown, secret: string | null = OPERATOR) =>
  app.fetch(
    new Request(`http://worker.test/v1/operator${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(secret !== null ? { authorization: `Bearer ${secret}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    workerEnv,
  );
const tenantId = () =>
  uniqueId('oa')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 60);
const MANYCHAT_KEY = '1000001:audit-manychat-key';

interface Entry {
  at: string;
  actor: string;
  action: string;
  tenantId: string | null;
  detail: string;
}

async function audit(query = ''): Promise<{ entries: Entry[]; next: number | null }> {
  const res = await call('GET', `/audit${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { entries: Entry[]; next: number | null };
}

/** This tenant's entries among the newest 500 (other test files act as the operator too, on the same Redis). */
async function entriesOf(id: string): Promise<Entry[]> {
  return (await audit('?limit=500')).entries.filter((e) => e.tenantId === id);
}

describe("the operator's audit log", () => {
  it('records every action on a tenant, newest first, and keeps its deletion after the tenant and its own log are gone; no secret in it', async () => {
    const id = tenantId();
    const before = Date.now();
    const created = await call('POST', '/tenants', { tenantId: id, manychatApiKey: MANYCHAT_KEY });
    expect(created.status).toBe(201);
    const { webhookSecret, adminSecret } = (await created.json()) as { webhookSecret: string; adminSecret: string };
    const rotated = (await (
      await call('POST', `/tenants/${id}/rotate`, { secret: 'webhook', overlapMinutes: 5 })
    ).json()) as { value: string };
    expect((await call('POST', `/tenants/${id}/suspend`)).status).toBe(200);
    expect((await call('POST', `/tenants/${id}/resume`)).status).toBe(200);
    const user = (await (await call('PUT', `/tenants/${id}/dashboard-users/alice`)).json()) as { password: string };
    // While the tenant exists, its own log has the operator's actions too.
    const own = (await (await tenantApi(id, adminSecret, 'GET', '/audit')).json()) as { entries: { action: string }[] };
    expect(own.entries.map((e) => e.action)).toEqual([
      'dashboard-user.password-set',
      'tenant.resumed',
      'tenant.suspended',
      'secret.rotated',
      'tenant.created',
    ]);

    const deleted = await call('DELETE', `/tenants/${id}`);
    expect(deleted.status).toBe(200);
    expect(await scanPrefix(session(), `t:${id}:`)).toEqual([]);

    const entries = await entriesOf(id);
    expect(entries.map((e) => e.action)).toEqual([
      'tenant.deleted',
      'dashboard-user.password-set',
      'tenant.resumed',
      'tenant.suspended',
      'secret.rotated',
      'tenant.created',
    ]);
    expect(entries.every((e) => e.actor === 'operator')).toBe(true);
    expect(entries.every((e) => Date.parse(e.at) >= before - 1000 && Date.parse(e.at) <= Date.now() + 1000)).toBe(true);
    const deletion = entries[0]!;
    expect(deletion.detail).toMatch(/^\d+ keys deleted; 0 remain$/);
    expect(Number(deletion.detail.split(' ')[0])).toBeGreaterThan(2);
    expect(entries.find((e) => e.action === 'secret.rotated')?.detail).toContain('webhook secret rotated');
    const text = JSON.stringify(entries);
    for (const secret of [webhookSecret, adminSecret, rotated.value, user.password, MANYCHAT_KEY])
      expect(text).not.toContain(secret);
  });

  it('is stored outside every tenant prefix', async () => {
    const id = tenantId();
    await call('POST', '/tenants', { tenantId: id, manychatApiKey: MANYCHAT_KEY });
    const raw = (await session().one((r) => r.lrange(OPERATOR_AUDIT_KEY, 0, 499))) as unknown[];
    expect(
      raw
        .map((e) => (typeof e === 'string' ? JSON.parse(e) : e) as Entry)
        .some((e) => e.tenantId === id && e.action === 'tenant.created'),
    ).toBe(true);
    expect(OPERATOR_AUDIT_KEY.startsWith('t:')).toBe(false);
    await call('DELETE', `/tenants/${id}`);
  });

  it("refuses a tenant's admin secret, its webhook secret, a wrong secret and none", async () => {
    const id = tenantId();
    const { webhookSecret, adminSecret } = (await (
      await call('POST', '/tenants', { tenantId: id, manychatApiKey: MANYCHAT_KEY })
    ).json()) as { webhookSecret: string; adminSecret: string };
    for (const secret of [adminSecret, webhookSecret, 'wrong', null]) {
      const res = await call('GET', '/audit', undefined, secret);
      expect(res.status, String(secret)).toBe(401);
      expect(JSON.stringify(await res.json())).not.toContain('tenant.created');
    }
    await call('DELETE', `/tenants/${id}`);
  });

  it('pages: `limit` entries from `offset`, and `next` where the following page starts', async () => {
    // Enough entries for two pages, whatever else the shared Redis holds.
    const id = tenantId();
    await call('POST', '/tenants', { tenantId: id, manychatApiKey: MANYCHAT_KEY });
    await call('POST', `/tenants/${id}/suspend`);
    await call('POST', `/tenants/${id}/resume`);
    const first = await audit('?limit=1');
    expect(first.entries).toHaveLength(1);
    expect(first.next).toBe(1);
    const second = await audit('?offset=1&limit=2');
    expect(second.entries).toHaveLength(2);
    expect(second.next).toBe(3);
    expect((await audit()).entries.length).toBeLessThanOrEqual(50);
    await call('DELETE', `/tenants/${id}`);
  });

  it('a query that is not a page is refused with a 400 naming the problem', async () => {
    const cases: [string, RegExp][] = [
      ['?limit=0', /^limit: /],
      ['?limit=501', /^limit: /],
      ['?limit=ten', /^limit: /],
      ['?offset=-1', /^offset: /],
      ['?offset=1.5', /^offset: /],
      ['?page=2', /page/],
    ];
    for (const [query, problem] of cases) {
      const res = await call('GET', `/audit${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: string; details: string[] };
      expect(body.error).toBe('invalid audit query');
      expect(body.details.join('; '), query).toMatch(problem);
    }
  });
});
