import { Ratelimit } from '@upstash/ratelimit';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { dashboardKeys } from './dashboard-keys.js';

/**
 * Login attempts, limited with @upstash/ratelimit sliding windows: per user of a tenant (slows a
 * guess at one password) and per client address across tenants (slows a sweep of many users).
 * Only failed attempts should cost much, but counting every attempt is simpler and a person who
 * types their password right does not log in ten times a minute.
 */
export const LOGIN_PER_USER = { tokens: 5, window: '300 s' } as const;
export const LOGIN_PER_ADDRESS = { tokens: 30, window: '300 s' } as const;

export async function loginAllowed(
  redis: RedisSession,
  tenantId: string,
  user: string,
  address: string,
): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
  const client = redis.redis as unknown as ConstructorParameters<typeof Ratelimit>[0]['redis'];
  const make = (limit: { tokens: number; window: `${number} s` }, prefix: string) =>
    new Ratelimit({
      redis: client,
      limiter: Ratelimit.slidingWindow(limit.tokens, limit.window),
      prefix,
      ephemeralCache: false,
      timeout: 0,
      analytics: false,
      enableProtection: false,
      enableTelemetry: false,
    });
  redis.roundTrips += 2;
  const [perUser, perAddress] = await Promise.all([
    make(LOGIN_PER_USER, dashboardKeys(tenantId).loginLimitPrefix).limit(encodeURIComponent(user)),
    make(LOGIN_PER_ADDRESS, 'dash-login-address').limit(address),
  ]);
  if (perUser.success && perAddress.success) return { ok: true };
  const reset = Math.max(perUser.success ? 0 : perUser.reset, perAddress.success ? 0 : perAddress.reset);
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((reset - Date.now()) / 1000)) };
}
