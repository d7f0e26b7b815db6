import type { InboundMessage } from '../../core/inbound-message.js';
import { claimTtlSeconds, deliveryKeyDigest } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { checkRateLimit, type RateLimitResult } from '../../guardrails/rate-limit.js';
import { claimWith, releaseClaim, type ClaimResult } from '../../core/storage/claims.js';
import { finishDueAt } from './turn-engine.js';

export interface StartedTurn {
  turnId: string;
  /** The delivery's digest (what names its claim). */
  digest: string;
  /** Null when the isolate already knew the contact was over a limit (nothing was sent to Redis). */
  claim: ClaimResult | null;
  /** Refused by a rate limit: the claim, if it was won, has been given back. */
  limited: Extract<RateLimitResult, { ok: false }> | null;
  /** The tenant's stored revision, read in the same round trip (null if not read). */
  storedRev: number | null;
}

/**
 * Everything a turn needs from Redis before the model, in ONE round trip: the rate limits
 * (`@upstash/ratelimit`'s scripts) and the duplicate check, the tenant's revision (is the
 * isolate's cached tenant still current?), and the claim with history and handoff state — all on
 * one auto-pipelining client in one tick, so they leave as one HTTP request. The claim is taken
 * optimistically; a refused message gives it back (one more round trip, on that path only).
 */
export async function startTurn(
  session: RedisSession,
  config: TenantConfig,
  inbound: InboundMessage,
  turnId: string,
): Promise<StartedTurn> {
  const digest = await deliveryKeyDigest(inbound.contactId, inbound.messageKey);
  // Past this the sweeper finishes the turn if nothing else has (the isolate died before the commit).
  const open = { job: { turnId, inbound }, dueAt: finishDueAt(config), retentionDays: config.retentionDays };
  const limit = await checkRateLimit(session, config.tenantId, inbound.contactId, config.guardrails.rateLimit, {
    deliveryKey: inbound.messageKey,
    // A script (a write, like the limiter's): an auto-pipeline sends reads and writes apart, so the
    // revision is read inside the claim's script rather than by a GET beside it.
    alongside: (redis) => [
      claimWith(redis, config.tenantId, digest, inbound.contactId, turnId, open, claimTtlSeconds(inbound.messageKey)),
    ],
  });
  const [claimResult] = limit.alongside ?? [null];
  const claimed = (claimResult as (ClaimResult & { tenantRev: number | null }) | null) ?? null;
  const claim: ClaimResult | null = claimed
    ? claimed.claimed
      ? { claimed: true, history: claimed.history, inHandoffUntil: claimed.inHandoffUntil }
      : { claimed: false, existingTurnId: claimed.existingTurnId }
    : null;
  const storedRev = claimed?.tenantRev ?? null;
  if (!limit.ok) {
    if (claim?.claimed) await releaseClaim(session, config.tenantId, digest, turnId);
    return { turnId, digest, claim: null, limited: limit, storedRev };
  }
  return { turnId, digest, claim, limited: null, storedRev };
}
