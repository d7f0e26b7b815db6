import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../../core/storage/keys.js';
import { createApp } from '../../app.js';
import { seedTenant, session, workerEnv } from '../../../test/support/workers-env.js';

const app = createApp();
const get = (tenantId: string, secret: string | null) =>
  app.fetch(
    new Request(`http://worker.test/v1/tenants/${tenantId}/config`, {
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
    }),
    workerEnv,
  );

describe('the tenant API authenticates before it tells anything', () => {
  it('no bearer → 401 naming the header', async () => {
    const { tenantId } = await seedTenant();
    const res = await get(tenantId, null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toContain('Authorization: Bearer');
  });
  it('an unknown tenant, a wrong secret and the webhook secret get the same 401', async () => {
    const { tenantId, secret } = await seedTenant();
    const answers = await Promise.all([get('no-such-tenant', 'x'), get(tenantId, 'x'), get(tenantId, secret)]);
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });
  it('a broken stored config: 401 without the admin secret, 503 naming the problems with it', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    await session().one((r) => r.set(tenantKeys(tenantId).config, JSON.stringify({ version: 1, tenantId })));
    const anonymous = await get(tenantId, 'x');
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(await anonymous.json())).not.toContain('displayName');
    const admin = await get(tenantId, adminSecret);
    expect(admin.status).toBe(503);
    expect(JSON.stringify(await admin.json())).toContain('displayName');
  });
  it('a tenant without an admin secret has its API closed', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const stored = JSON.parse((await session().one((r) => r.get(tenantKeys(tenantId).secrets))) as string) as Record<
      string,
      unknown
    >;
    delete stored.adminSecret;
    await session().one((r) => r.set(tenantKeys(tenantId).secrets, JSON.stringify(stored)));
    expect((await get(tenantId, adminSecret)).status).toBe(401);
  });
  it('the right admin secret reads the config', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const res = await get(tenantId, adminSecret);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tenantId: string }).tenantId).toBe(tenantId);
  });
});
