import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { z } from 'zod';
import { secretsEqual } from '../../../core/security/constant-time.js';
import { signingKey, verificationKeys, type SecretsInput } from '../../../core/security/signing-keys.js';
import { parseJson, type RedisSession } from '../../../core/storage/redis-session.js';
import { isTenantId } from '../../../core/tenant/tenant-id.js';
import { dashboardKeys } from './dashboard-keys.js';

/**
 * Dashboard sessions: a random id in a signed (HMAC, SESSION_SECRET's dashboard key) `__Host-` cookie that is
 * HttpOnly, Secure and SameSite=Lax, and a row in Redis under the tenant's prefix that expires
 * with it. The row is the authority: logging out (or revoking a user) deletes it, and a cookie
 * whose row is gone is worth nothing, however well signed. The cookie names the tenant; the row
 * must name the same one, so a session can only ever act for the tenant it was opened for.
 */
export const SESSION_COOKIE = 'dash';
/** The cookie's full name as browsers store it (`__Host-` prefix: Secure, Path=/, no Domain). */
export const SESSION_COOKIE_NAME = `__Host-${SESSION_COOKIE}`;
export const SESSION_SECONDS = 8 * 3600;

const SessionRowSchema = z.object({
  tenantId: z.string(),
  user: z.string(),
  csrf: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type DashboardSession = z.infer<typeof SessionRowSchema> & { sid: string };

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function openSession(
  c: Context,
  redis: RedisSession,
  secret: SecretsInput,
  tenantId: string,
  user: string,
  now = new Date(),
): Promise<DashboardSession> {
  const sid = randomHex(32);
  const row = {
    tenantId,
    user,
    csrf: randomHex(32),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000).toISOString(),
  };
  const keys = dashboardKeys(tenantId);
  await redis.multi((m) => {
    m.set(keys.session(sid), JSON.stringify(row), { ex: SESSION_SECONDS });
    m.sadd(keys.userSessions(user), sid);
    m.expire(keys.userSessions(user), SESSION_SECONDS);
  });
  await setSignedCookie(c, SESSION_COOKIE, `${tenantId}.${sid}`, await signingKey(secret, 'dashboard-session'), {
    prefix: 'host',
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'Lax',
    maxAge: SESSION_SECONDS,
  });
  return { sid, ...row };
}

/** The session the request's cookie names, if its signature holds and its row still exists and has not expired. */
export async function readSession(
  c: Context,
  redis: RedisSession,
  secret: SecretsInput,
  now = new Date(),
): Promise<DashboardSession | null> {
  // Signed with the current key, or (a rotation, a cookie from before derived keys) an older one.
  let value: string | undefined | false;
  for (const key of await verificationKeys(secret, 'dashboard-session')) {
    value = await getSignedCookie(c, key, SESSION_COOKIE, 'host');
    if (value) break;
  }
  if (!value) return null;
  const match = /^([a-z0-9-]{1,63})\.([0-9a-f]{64})$/.exec(value);
  if (!match || !isTenantId(match[1]!)) return null;
  const [, tenantId, sid] = match as unknown as [string, string, string];
  const raw = await redis.one((r) => r.get(dashboardKeys(tenantId).session(sid)));
  const row = SessionRowSchema.safeParse(parseJson(raw));
  if (!row.success || row.data.tenantId !== tenantId || Date.parse(row.data.expiresAt) <= now.getTime()) return null;
  return { sid, ...row.data };
}

/** Logout: the row is deleted, so the cookie (even a copy of it) stops working at once. */
export async function closeSession(c: Context, redis: RedisSession, session: DashboardSession): Promise<void> {
  const keys = dashboardKeys(session.tenantId);
  await redis.multi((m) => {
    m.del(keys.session(session.sid));
    m.srem(keys.userSessions(session.user), session.sid);
  });
  deleteCookie(c, SESSION_COOKIE, { prefix: 'host', path: '/', secure: true });
}

/** Revokes every session of a user (e.g. after a password change). Returns how many were open. */
export async function revokeUserSessions(redis: RedisSession, tenantId: string, user: string): Promise<number> {
  const keys = dashboardKeys(tenantId);
  const sids = (await redis.one((r) => r.smembers(keys.userSessions(user)))) as string[];
  await redis.multi((m) => {
    for (const sid of sids) if (/^[0-9a-f]{64}$/.test(sid)) m.del(keys.session(sid));
    m.del(keys.userSessions(user));
  });
  return sids.length;
}

/** The form token of a session, compared in constant time. */
export function csrfTokenMatches(session: DashboardSession, provided: unknown): Promise<boolean> {
  return typeof provided === 'string' && provided.length > 0
    ? secretsEqual(provided, session.csrf)
    : Promise.resolve(false);
}
