import { Hono } from 'hono';
import { TenantIdSchema } from '../../core/tenant/tenant-id.js';
import type { AppContext } from '../http/app-context.js';
import { jsonError } from '../http/errors.js';
import { recordOperatorAction } from '../tenants/operator-audit.js';
import { describeTenant } from '../tenants/provisioning.js';
import { revokeUserSessions } from './auth/sessions.js';
import { generatePassword, removeDashboardUser, setDashboardUser, UserNameSchema } from './auth/users.js';

/**
 * `/v1/operator/tenants/:tenant/dashboard-users/:user` (behind the operator secret, mounted by the
 * operator routes): PUT gives the user a new generated password, shown once, and ends their open
 * sessions; DELETE removes the user and ends their sessions. Passwords are stored only as
 * PBKDF2 hashes.
 */
export function dashboardUserOperatorRoutes() {
  const app = new Hono<AppContext>();
  app.on(['PUT', 'DELETE'], '/:tenant/dashboard-users/:user', async (c) => {
    const tenantId = TenantIdSchema.safeParse(c.req.param('tenant'));
    const user = UserNameSchema.safeParse(c.req.param('user'));
    if (!user.success)
      return jsonError(
        c,
        400,
        'invalid user name',
        user.error.issues.map((i) => i.message),
      );
    if (!tenantId.success || !(await describeTenant(c.get('session'), tenantId.data)))
      return jsonError(c, 404, 'no such tenant');
    const session = c.get('session');
    if (c.req.method === 'DELETE') {
      const removed = await removeDashboardUser(session, tenantId.data, user.data);
      const revoked = await revokeUserSessions(session, tenantId.data, user.data);
      if (removed)
        await recordOperatorAction(session, {
          action: 'dashboard-user.removed',
          tenantId: tenantId.data,
          detail: `user ${user.data}; ${revoked} sessions ended`,
        });
      return removed
        ? c.json({ tenantId: tenantId.data, user: user.data, removed, sessionsEnded: revoked })
        : jsonError(c, 404, `no dashboard user "${user.data}"`);
    }
    const password = generatePassword();
    await setDashboardUser(session, tenantId.data, user.data, password);
    const revoked = await revokeUserSessions(session, tenantId.data, user.data);
    await recordOperatorAction(session, {
      action: 'dashboard-user.password-set',
      tenantId: tenantId.data,
      detail: `user ${user.data}; ${revoked} sessions ended`,
    });
    return c.json({
      tenantId: tenantId.data,
      user: user.data,
      password,
      sessionsEnded: revoked,
      note: 'give this password to the user now; it is not shown again',
    });
  });
  return app;
}
