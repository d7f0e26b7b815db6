import { Ratelimit } from '@upstash/ratelimit';
import type { Redis } from '@upstash/redis/cloudflare';
import type { RedisSession } from '../core/storage/redis-session.js';
import { deliveryKeyDigest, tenantKeys } from '../core/storage/keys.js';
import type { RateLimitSettings } from '../core/tenant/guardrail-settings.js';

/**
 * Rate limits, checked by the ManyChat route before a turn (so a limited message costs no claim
 * and no model call): per contact per minute, per contact per hour, and per tenant per minute,
 * with `@upstash/ratelimit` sliding windows over the request's own Redis client. The contact's
 * hourly window also bounds ManyChat's 100 sendFlow per contact per hour (see action-policy.ts).
 *
 * Round trips: the three limits and the duplicate check are evaluated in ONE round trip. The
 * limiters run concurrently over the client's auto-pipelining view (the request's own client), so their
 * EVALSHA calls and the SET NX leave together in one `/pipeline` request. The first call after Redis loses its script cache costs
 * one more (EVALSHA answers NOSCRIPT and the library re-sends the script with EVAL), and against
 * an open-source Redis behind an Upstash-compatible proxy the first call of an isolate costs one
 * more again (the Upstash-only script flag is refused and the script re-sent without it). A
 * contact this isolate has already seen over its limit is refused with no round trip at all.
 * Every round trip is added to `session.roundTrips`.
 *
 * A refused message gives back what it took: if the contact is over a limit, the tenant's token
 * (and the other contact window's) is refunded, and vice versa, so one noisy contact cannot spend
 * the tenant's budget. Duplicates of a delivery already let through (ManyChat retries, concurrent
 * copies) are recognised by their message key (a SET NX in the same pipeline) and not counted:
 * they join the first turn and cost no model call. Refunds cost one more round trip, only on the
 * refused or duplicate path. Corner case: a contact this isolate holds as over its limit is
 * refused without Redis, so a late retry of an earlier, accepted message from that contact gets
 * the polite reply instead of the first turn's reply.
 *
 * Failure: the library's fail-open timeout is disabled; a Redis error propagates like any other
 * Redis failure in the request (the claim that follows needs Redis too), so the route answers
 * 500 and no turn runs. Keys live under `t:{tenant}:rl:` and expire with their window.
 */
export type RateLimitResult = (
  { ok: true } | { ok: false; reply: string; reason: string; scope: 'contact' | 'tenant' }
) & { alongside?: unknown[] };

/** Contacts this isolate saw over their limit, until when (epoch ms). Saves Redis on floods. */
const blockedContacts = new Map<string, number>();
/** The memory is cleared when it holds this many contacts (a forgotten one is judged by Redis again). */
export const BLOCKED_LIMIT = 10_000;

/** Remembers a contact over its limit until `until` (epoch ms). Exported for its test (the bound). */
export function rememberBlocked(contactKey: string, until: number): void {
  if (blockedContacts.size >= BLOCKED_LIMIT) blockedContacts.clear();
  blockedContacts.set(contactKey, until);
}

/** How many contacts the isolate remembers (for the test of the bound). */
export function blockedContactCount(): number {
  return blockedContacts.size;
}

interface Window {
  scope: 'contact' | 'tenant';
  label: string;
  limiter: Ratelimit;
  identifier: string;
}

/** `Redis.autoPipeline` exists at runtime on every client but is typed `protected`. */
interface AutoPipelining {
  autoPipeline(): Redis;
}
interface PipelineCounter {
  pipelineCounter: number;
}

export interface RateLimitOptions {
  /**
   * The delivery's message key. A retried or concurrent duplicate of a delivery already let
   * through is not counted again (it joins the first turn and costs no model call); the check
   * rides in the same round trip.
   */
  deliveryKey?: string;
  /**
   * Commands of the caller's to send in the same round trip (e.g. the delivery's claim), issued on
   * the same auto-pipelining client in the same tick; their results come back in `alongside`. Not
   * sent at all when the isolate already knows the contact is over a limit.
   */
  alongside?: (redis: Redis) => Promise<unknown>[];
}

/**
 * The rate-limit windows' keys: this module owns the tenant's `rl` prefix (`t:{tenant}:rl`), under
 * which every @upstash/ratelimit window of the tenant lives — the webhook's (here), the replay's
 * (src/replay/replay-limit.ts) and the dashboard login's (src/dashboard/auth/dashboard-keys.ts) —
 * and a contact's windows (`contact`), which a contact's deletion scans for. Nobody else spells it.
 */
export function rateLimitKeys(tenantId: string): {
  prefix: string;
  contact: (contactId: string) => string;
  replay: string;
  dashboardLogin: string;
} {
  const prefix = tenantKeys(tenantId).rateLimitPrefix;
  return {
    prefix,
    contact: (contactId) => `${prefix}:c:${encodeURIComponent(contactId)}`,
    replay: `${prefix}:replay`,
    dashboardLogin: `${prefix}:dash-login`,
  };
}

/** How long a delivery key is remembered for duplicate detection (ManyChat retries within seconds). */
const SEEN_SECONDS = 3600;

export async function checkRateLimit(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  settings: RateLimitSettings,
  options: RateLimitOptions = {},
): Promise<RateLimitResult> {
  const keys = rateLimitKeys(tenantId);
  const prefix = keys.prefix;
  const contactKey = keys.contact(contactId);
  // Known over its limit until `blockedUntil` (a contact not known reads as 0: long past). From the
  // window's reset on, Redis judges again; a passed entry is forgotten (deleting an absent one is a no-op).
  const blockedUntil = blockedContacts.get(contactKey) ?? 0;
  if (blockedUntil > Date.now())
    return refused(
      'contact',
      `contact is over a rate limit until ${new Date(blockedUntil).toISOString()} (known to this isolate)`,
      settings,
    );
  blockedContacts.delete(contactKey);

  // The auto-pipelining view counts the requests it sends: that is exactly our round trips.
  const pipelined = (session.redis as unknown as AutoPipelining).autoPipeline();
  const counter = pipelined as unknown as PipelineCounter;
  const before = counter.pipelineCounter;
  // The auto-pipelining view is a full client; the library's narrower Redis type is a subset of it.
  const redis = pipelined as unknown as ConstructorParameters<typeof Ratelimit>[0]['redis'];
  const make = (tokens: number, window: `${number} s`) =>
    new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(tokens, window),
      prefix,
      ephemeralCache: false,
      timeout: 0,
      analytics: false,
      enableProtection: false,
      enableTelemetry: false,
    });
  const windows: Window[] = [
    {
      scope: 'contact',
      label: `${settings.contactPerMinute} a minute per contact`,
      limiter: make(settings.contactPerMinute, '60 s'),
      identifier: `c:${encodeURIComponent(contactId)}:m`,
    },
    {
      scope: 'contact',
      label: `${settings.contactPerHour} an hour per contact`,
      limiter: make(settings.contactPerHour, '3600 s'),
      identifier: `c:${encodeURIComponent(contactId)}:h`,
    },
    {
      scope: 'tenant',
      label: `${settings.tenantPerMinute} a minute for the tenant`,
      limiter: make(settings.tenantPerMinute, '60 s'),
      identifier: 't:m',
    },
  ];
  // Named like the claim: the contact and the whole delivery key, hashed (never a cut that could merge two).
  const seenKey = options.deliveryKey
    ? `${prefix}:seen:${await deliveryKeyDigest(contactId, options.deliveryKey)}`
    : null;
  try {
    // Issued in one tick, so the SET NX and the three EVALSHAs leave in one pipeline.
    const extra = options.alongside ? options.alongside(pipelined) : [];
    const [first, ...rest] = await Promise.all([
      seenKey ? pipelined.set(seenKey, '1', { nx: true, ex: SEEN_SECONDS }) : Promise.resolve('OK'),
      ...windows.map((w) => w.limiter.limit(w.identifier)),
      ...extra,
    ]);
    const results = rest.slice(0, windows.length) as Awaited<ReturnType<Ratelimit['limit']>>[];
    const alongside = rest.slice(windows.length);
    const taken = windows.filter((_, i) => results[i]!.success);
    // Giving back nothing (no window taken, no extra command) sends nothing: no round trip.
    const giveBack = (...extra: Promise<unknown>[]) =>
      Promise.all([...taken.map((w) => w.limiter.limit(w.identifier, { rate: -1 })), ...extra]);
    if (first !== 'OK') {
      // A duplicate of a delivery already let through: not a new message, so not counted.
      await giveBack();
      return { ok: true, alongside };
    }
    const over = windows.findIndex((_, i) => !results[i]!.success);
    if (over < 0) return { ok: true, alongside };
    // Give back what the refused message took, and forget its key so a retry is judged afresh.
    await (seenKey ? giveBack(pipelined.del(seenKey)) : giveBack());
    const window = windows[over]!;
    const reset = results[over]!.reset;
    if (window.scope === 'contact') rememberBlocked(contactKey, reset);
    return {
      ...refused(window.scope, `over the limit of ${window.label} until ${new Date(reset).toISOString()}`, settings),
      alongside,
    };
  } finally {
    session.roundTrips += counter.pipelineCounter - before;
  }
}

function refused(scope: 'contact' | 'tenant', reason: string, settings: RateLimitSettings): RateLimitResult {
  return { ok: false, reply: settings.reply, reason, scope };
}
