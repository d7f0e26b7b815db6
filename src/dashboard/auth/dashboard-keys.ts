import { tenantKeys } from '../../../core/storage/keys.js';
import { rateLimitKeys } from '../../../guardrails/rate-limit.js';

/**
 * The dashboard's Redis keys, all under the tenant's own prefix (`t:{tenant}:dash:…`): a session
 * or a user can only reach the tenant it names, and deleting a tenant deletes them too.
 */
export function dashboardKeys(tenantId: string) {
  const t = tenantKeys(tenantId).dashboardPrefix;
  return {
    /** Hash: user name → JSON user record (password hash, created). */
    users: `${t}:users`,
    /** One session row (JSON), expiring with the session. */
    session: (sid: string) => {
      if (!/^[0-9a-f]{64}$/.test(sid)) throw new Error('a session id is 64 hex characters');
      return `${t}:session:${sid}`;
    },
    /** The session ids of one user, so all of them can be revoked at once. */
    userSessions: (user: string) => `${t}:user-sessions:${encodeURIComponent(user)}`,
    /** @upstash/ratelimit prefix for login attempts against this tenant. */
    loginLimitPrefix: rateLimitKeys(tenantId).dashboardLogin,
  };
}
