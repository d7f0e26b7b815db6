import { Hono } from 'hono';
import type { DashboardContext } from './dashboard-context.js';
import { Layout } from './pages/layout.js';

/** The pages behind the login, each scoped to the session's tenant. */
export function dashboardPages() {
  const app = new Hono<DashboardContext>();
  app.get('/setup', (c) => c.html(<Layout title="Setup" section="setup" dash={c.get('dash')} tenantName={c.get('tenant').config.displayName}><p>Setup</p></Layout>));
  return app;
}
