import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { z } from 'zod';
import { TenantIdSchema } from '../../core/tenant/tenant-id.js';
import type { AppContext } from '../http/app-context.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { appendAudit } from '../tenants/audit-log.js';
import { loginAllowed } from './auth/login-limit.js';
import { requireSession } from './auth/require-session.js';
import { closeSession, openSession, readSession } from './auth/sessions.js';
import { checkDashboardLogin, UserNameSchema } from './auth/users.js';
import { BASE, type DashboardContext } from './dashboard-context.js';
import { LoginPage } from './pages/login.js';
import { COPY_SCRIPT, STYLESHEET } from './pages/style.js';
import { dashboardPages } from './dashboard-pages.js';
import { sessionSecrets } from '../env.js';

const FORM_LIMIT = 256 * 1024;

const LoginFormSchema = z.object({
  tenant: TenantIdSchema,
  user: UserNameSchema,
  password: z.string().min(1).max(1000),
});

/** The audit log's name for a dashboard user. */
export const actorOf = (user: string) => `dashboard:${user}`;

/** Hono's CSRF check throws; the dashboard answers it as a page, not as the app's JSON 500. */
function originCheck(): MiddlewareHandler {
  const check = csrf();
  return async (c, next) => {
    try {
      await check(c, next);
    } catch (err) {
      if (err instanceof HTTPException && err.status === 403)
        return c.text('Refused: this form was not sent from the dashboard (cross-site request).', 403);
      throw err;
    }
  };
}

/**
 * `/dashboard`: server-rendered Hono JSX, no script. The login is per tenant; every other page
 * reads the tenant from the session (never from a URL or a form field).
 */
export function dashboardRoutes() {
  const app = new Hono<AppContext>();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'same-origin',
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  app.use(originCheck());
  // Before anything reads a form: the largest is the setup form (a whole config).
  app.use(limitBody(FORM_LIMIT));

  app.get('/style.css', (c) => c.body(STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/copy.js', (c) => c.body(COPY_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/', (c) => c.redirect(`${BASE}/setup`, 303));
  app.get('/login', async (c) => {
    const dash = await readSession(c as unknown as Context, c.get('session'), sessionSecrets(c.get('services').env));
    if (dash) return c.redirect(`${BASE}/setup`, 303);
    return c.html(<LoginPage />);
  });
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const parsed = LoginFormSchema.safeParse(form);
    const tenant = typeof form.tenant === 'string' ? form.tenant.slice(0, 63) : '';
    const user = typeof form.user === 'string' ? form.user.slice(0, 64) : '';
    if (!parsed.success)
      return c.html(<LoginPage error="Wrong tenant, user or password." tenant={tenant} user={user} />, 401);
    const redis = c.get('session');
    const allowed = await loginAllowed(
      redis,
      parsed.data.tenant,
      parsed.data.user,
      c.req.header('cf-connecting-ip') ?? 'local',
    );
    if (!allowed.ok) {
      c.header('Retry-After', String(allowed.retryAfterSeconds));
      return c.html(
        <LoginPage
          error={`Too many login attempts. Try again in ${allowed.retryAfterSeconds} seconds.`}
          tenant={tenant}
          user={user}
        />,
        429,
      );
    }
    if (!(await checkDashboardLogin(redis, parsed.data.tenant, parsed.data.user, parsed.data.password))) {
      console.warn(`dashboard: failed login for tenant "${parsed.data.tenant}"`);
      return c.html(<LoginPage error="Wrong tenant, user or password." tenant={tenant} user={user} />, 401);
    }
    await openSession(
      c as unknown as Context,
      redis,
      sessionSecrets(c.get('services').env),
      parsed.data.tenant,
      parsed.data.user,
    );
    await appendAudit(redis, parsed.data.tenant, {
      actor: actorOf(parsed.data.user),
      action: 'dashboard.login',
      detail: 'logged in',
    });
    return c.redirect(`${BASE}/setup`, 303);
  });

  const pages = new Hono<DashboardContext>();
  pages.use(requireSession());
  pages.post('/logout', async (c) => {
    await closeSession(c as unknown as Context, c.get('session'), c.get('dash'));
    return c.redirect(`${BASE}/login`, 303);
  });
  pages.route('/', dashboardPages());
  app.route('/', pages as unknown as Hono<AppContext>);
  return app;
}
