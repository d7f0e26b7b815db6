import { z } from 'zod';
import { randomBase64Url } from '../../../core/security/random-base64url.js';
import { parseJson, type RedisSession } from '../../../core/storage/redis-session.js';
import { hashPassword, PasswordHashSchema, verifyPassword } from './password.js';
import { dashboardKeys } from './dashboard-keys.js';

/** A dashboard user of one tenant. The name is unique within the tenant only. */
export const UserNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._@-]{0,63}$/, 'a user name is 1–64 lower-case letters, digits and . _ @ -');

const UserRecordSchema = z.object({ password: PasswordHashSchema, createdAt: z.string() });

/** Creates or replaces a user's password (operators and the local stack's demo seed). */
export async function setDashboardUser(
  session: RedisSession,
  tenantId: string,
  user: string,
  password: string,
): Promise<void> {
  UserNameSchema.parse(user);
  if (password.length < 8) throw new Error('a dashboard password has at least 8 characters');
  const record = { password: await hashPassword(password), createdAt: new Date().toISOString() };
  await session.one((r) => r.hset(dashboardKeys(tenantId).users, { [user]: JSON.stringify(record) }));
}

/** Whether the user exists in this tenant and the password is theirs (same work either way). */
export async function checkDashboardLogin(
  session: RedisSession,
  tenantId: string,
  user: string,
  password: string,
): Promise<boolean> {
  const raw = await session.one((r) => r.hget(dashboardKeys(tenantId).users, user));
  const parsed = UserRecordSchema.safeParse(parseJson(raw));
  return verifyPassword(password, parsed.success ? parsed.data.password : null);
}

/** Removes a user; their open sessions are revoked by the caller (revokeUserSessions). */
export async function removeDashboardUser(session: RedisSession, tenantId: string, user: string): Promise<boolean> {
  return (await session.one((r) => r.hdel(dashboardKeys(tenantId).users, user))) > 0;
}

/** A password for a new user: 144 random bits, base64url (shown once to the operator), never starting with "-". */
export function generatePassword(): string {
  return randomBase64Url(18);
}
