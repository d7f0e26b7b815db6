import type { Context, MiddlewareHandler } from 'hono';
import { loadTenant } from '../../tenants/tenant-store.js';
import type { DashboardContext } from '../dashboard-context.js';
import { BASE } from '../dashboard-context.js';
import { csrfTokenMatches, readSession } from './sessions.js';
import { sessionSecrets } from '../../env.js';

/**
 * Every dashboard page but the login: a live session, and its tenant loaded from Redis by the
 * session's tenant id — the only tenant any query of the request may touch. A form post must
 * also carry the session's CSRF token (`_csrf`), on top of Hono's Origin / Sec-Fetch-Site check.
 */
export function requireSession(): MiddlewareHandler<DashboardContext> {
  return async (c, next) => {
    const services = c.get('services');
    const redis = c.get('session');
    const dash = await readSession(c as unknown as Context, redis, sessionSecrets(services.env));
    if (!dash) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect(`${BASE}/login`, 303);
      return c.text('Your session has ended. Log in again.', 401);
    }
    const loaded = await loadTenant(redis, dash.tenantId, await services.secretKeys());
    if (!loaded.found) return c.text('This tenant no longer exists.', 410);
    if ('broken' in loaded)
      return c.text(
        `This tenant's stored configuration does not validate: ${loaded.broken.join('; ').slice(0, 500)}`,
        503,
      );
    if (c.req.method === 'POST') {
      const form = await c.req.parseBody();
      if (!(await csrfTokenMatches(dash, form._csrf)))
        return c.text('This form is missing its security token (CSRF). Reload the page and try again.', 403);
    }
    c.set('dash', dash);
    c.set('tenant', { config: loaded.config, secrets: loaded.secrets, meta: loaded.meta });
    c.set('tenantRev', loaded.rev);
    await next();
  };
}
