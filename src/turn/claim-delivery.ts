import { claimTtlSeconds, deliveryKeyDigest } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { claimWith, type ClaimResult, type OpenClaim } from '../../core/storage/claims.js';

// The claim's keys and scripts live in the claim store (core/storage/claims.ts); a turn opens its claim here.

/**
 * Claims a delivery with SET NX and, in the same round trip, reads what the turn needs (history,
 * handoff state). A retried or concurrent duplicate loses the SET and learns the turn it belongs
 * to from the GET queued right after it. The claim is named by the contact and the whole message
 * key, hashed: no two contacts, and no two different keys, ever share one.
 *
 * Given an `open` claim, the winner is also listed among the tenant's open claims (the job kept
 * beside it), in the same script: if the isolate dies, or every finish-turn publish fails, the
 * sweeper finds the claim past its due time and finishes the turn. The commit takes it off.
 */
export async function claimDelivery(
  session: RedisSession,
  tenantId: string,
  messageKey: string,
  contactId: string,
  turnId: string,
  open?: OpenClaim,
): Promise<ClaimResult> {
  const digest = await deliveryKeyDigest(contactId, messageKey);
  const { tenantRev: _rev, ...claim } = await session.one((r) =>
    claimWith(r, tenantId, digest, contactId, turnId, open, claimTtlSeconds(messageKey)),
  );
  return claim;
}
