import { describe, expect, it } from 'vitest';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { SESSION_COOKIE_NAME } from '../../src/dashboard/auth/sessions.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { seedTenant, session } from '../support/workers-env.js';

async function tenantWithUser(user = 'owner', password = 'correct-horse-1') {
  const t = await seedTenant();
  await setDashboardUser(session(), t.tenantId, user, password);
  return { ...t, user, password };
}

describe('dashboard login', () => {
  it('sets a signed __Host- session cookie: HttpOnly, Secure, SameSite=Lax, Path=/, with an expiry', async () => {
    const a = await tenantWithUser();
    const client = new DashboardClient();
    const res = await client.request('POST', '/dashboard/login', { tenant: a.tenantId, user: a.user, password: a.password });
    expect(res.status).toBe(303);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie.startsWith(`${SESSION_COOKIE_NAME}=`)).toBe(true);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=\d+/);
    expect(cookie).not.toMatch(/Domain=/i);
  });

  it('refuses a wrong password, an unknown user and another tenant\'s user alike', async () => {
    const a = await tenantWithUser();
    const b = await tenantWithUser('other', 'password-of-b');
    for (const [tenant, user, password] of [[a.tenantId, a.user, 'wrong-password'], [a.tenantId, 'nobody', a.password], [a.tenantId, b.user, b.password]] as const) {
      const client = new DashboardClient();
      const res = await client.request('POST', '/dashboard/login', { tenant, user, password });
      expect(res.status).toBe(401);
      expect(client.cookie).toBe('');
      expect(await res.text()).toContain('Wrong tenant, user or password.');
    }
  });
});
