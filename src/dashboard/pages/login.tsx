import type { FC } from 'hono/jsx';
import { BASE } from '../dashboard-context.js';
import { Layout, Notice } from './layout.js';

export const LoginPage: FC<{ error?: string; tenant?: string; user?: string }> = ({ error, tenant, user }) => (
  <Layout title="Log in" section="login">
    {error ? <Notice kind="error">{error}</Notice> : null}
    <form method="post" action={`${BASE}/login`} class="card narrow">
      <label for="tenant">Tenant</label>
      <input id="tenant" name="tenant" type="text" autocomplete="organization" required value={tenant ?? ''} />
      <label for="user">User</label>
      <input id="user" name="user" type="text" autocomplete="username" required value={user ?? ''} />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <div class="actions">
        <button type="submit">Log in</button>
      </div>
    </form>
  </Layout>
);
