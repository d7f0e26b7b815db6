import { z } from 'zod';
import { sha256Hex } from '../security/digest.js';
import { isTenantId } from '../tenant/tenant-id.js';

/**
 * Every Redis key the product writes. Tenant data lives under `t:{tenant}:` so a read or write
 * can only reach the tenant it names; ids are validated before they reach a key.
 */
const SAFE_ID = /^[A-Za-z0-9_.:@-]{1,200}$/;

/** An id that may become part of a key (turn, pinned row, action): checked where it comes in, as a 4xx. */
export const KeyIdSchema = z.string().regex(SAFE_ID, 'an id of 1–200 letters, digits and _ . : @ -');

export function assertSafeId(kind: string, value: string): string {
  if (!SAFE_ID.test(value)) throw new Error(`${kind} has characters that cannot be part of a key`);
  return value;
}

/** Longest a contact id may be in a key, escaped. */
const MAX_ENCODED_CONTACT_ID = 300;

/**
 * A contact id in a key: escaped, never cut (ingress bounds contact ids; a cut would let two ids
 * share a key). Message keys never appear in keys as they are: see `deliveryKeyDigest`.
 */
function encodePart(value: string): string {
  const encoded = encodeURIComponent(value);
  if (encoded.length > MAX_ENCODED_CONTACT_ID) throw new Error('contact id is too long to be part of a key');
  return encoded;
}

/**
 * A contact id that can be part of a key, checked where it comes in (a signed job carries one
 * QStash will retry for ever if it is answered 5xx): non-empty, well-formed, at most 300
 * characters once escaped.
 */
export const ContactIdSchema = z
  .string()
  .min(1)
  .refine(
    (v) => v.isWellFormed() && encodeURIComponent(v).length <= MAX_ENCODED_CONTACT_ID,
    `a contact id of at most ${MAX_ENCODED_CONTACT_ID} characters once URL-escaped`,
  );

/**
 * A delivery key that only a message's content identifies (ManyChat with no `message_key` and no
 * `last_interaction`: a hash of contact and text, prefix `h:`) cannot tell a retry from the same
 * words sent again. Its claim holds for a window from the first delivery, so a retry a few
 * seconds later is a duplicate wherever the wall-clock minute turns, and the same words written
 * again after the window are a new turn. Every other key names one message: the full claim TTL.
 */
export const FALLBACK_KEY_PREFIX = 'h:';
export const FALLBACK_KEY_WINDOW_SECONDS = 120;

export function claimTtlSeconds(messageKey: string): number {
  return messageKey.startsWith(FALLBACK_KEY_PREFIX) ? FALLBACK_KEY_WINDOW_SECONDS : TTL.claimSeconds;
}

/** Digest of what a digest-named key stands for: 64 hex characters. */
const DIGEST = /^[0-9a-f]{64}$/;
function digestPart(kind: string, digest: string): string {
  if (!DIGEST.test(digest)) throw new Error(`${kind} must be a SHA-256 hex digest`);
  return digest;
}

export const TTL = {
  claimSeconds: 3 * 24 * 3600, // Messenger retries for up to 36 h
  turnSeconds: 30 * 24 * 3600,
  historySeconds: 7 * 24 * 3600,
  outboxSeconds: 30 * 24 * 3600,
  /** Pinned rows outlive their expiry so a late click still finds them (and does nothing). */
  pinnedSeconds: 14 * 24 * 3600,
  /** A contact's reply-order set: refreshed by every message; a member that outlives its wait is ignored anyway. */
  replyOrderSeconds: 24 * 3600,
} as const;

/**
 * How long a key that holds a contact's words lives, under a tenant's retention (days): its own
 * TTL, or the retention if shorter.
 */
export function retainedTtl(ttlSeconds: number, retentionDays: number | undefined): number {
  return retentionDays ? Math.min(ttlSeconds, retentionDays * 24 * 3600) : ttlSeconds;
}

/**
 * Every key of one tenant. A stored structure's keys are named in production only by its owner
 * module (and the tests), which parses its replies; the multi-structure atomic scripts take them
 * from the owner's `xxxKeys(tenantId)` (test/node/storage-owners.test.ts holds the list):
 * claims.ts (claim, openClaims, claimJob), turn-records.ts (turn, turnLog, contactTurns),
 * contact-state.ts (history, handoff), handoffs.ts (handoffIndex), turn-metrics.ts (metricsHour),
 * outbox-store.ts (outbox, outboxPending, ledger), pinned-rows.ts (pinnedTerms, pinnedStatus,
 * pendingCall, approvalQueue, contactRows), reply-order.ts (replyOrder), dead-letter-list.ts
 * (deadLetters), alert-markers.ts (alertSent), tenant-record.ts (config, secrets, meta, rev);
 * guardrails/rate-limit.ts (rateLimitPrefix); src/tenants/audit-log.ts (audit),
 * src/tenants/deletion-status.ts (deletionStatus), src/tenants/page-tokens.ts (contactPage),
 * src/dashboard/auth/dashboard-keys.ts (dashboardPrefix). A new builder needs an owner there.
 */
export function tenantKeys(tenantId: string): TenantKeys {
  let keys = keysByTenant.get(tenantId);
  if (!keys) {
    if (!isTenantId(tenantId)) throw new Error('tenant id is not 1–63 lower-case letters, digits and hyphens');
    if (keysByTenant.size >= TENANT_KEYS_CACHE_LIMIT) keysByTenant.clear();
    keys = Object.freeze(buildTenantKeys(tenantId));
    keysByTenant.set(tenantId, keys);
  }
  return keys;
}

export type TenantKeys = Readonly<ReturnType<typeof buildTenantKeys>>;

/**
 * A tenant's key builders, made once per tenant id per isolate (frozen, so no caller can change
 * what another reads): a turn names its keys through `tenantKeys` a dozen times, and each call
 * used to check the id and build this object with its twenty closures again. Only valid ids are
 * remembered; the bound keeps an isolate that sees many tenants from holding them all.
 */
const keysByTenant = new Map<string, TenantKeys>();
const TENANT_KEYS_CACHE_LIMIT = 1024;

function buildTenantKeys(tenantId: string) {
  const t = `t:${tenantId}`;
  return {
    config: `${t}:config`,
    secrets: `${t}:secrets`,
    /** Bumped by every change to config, secrets or status: an isolate's cached tenant is checked against it. */
    rev: `${t}:rev`,
    /** Status (active, suspended) and creation time. */
    meta: `${t}:meta`,
    /** Append-only log of every change (newest first), readable through the tenant API. */
    audit: `${t}:audit`,
    /** The turns of one contact (scored by time): what a contact's data deletion must reach. */
    contactTurns: (contactId: string) => `${t}:contact-turns:${encodePart(contactId)}`,
    /** A data-deletion request's status (Meta's callback): a code, a time, no personal data. */
    deletionStatus: (code: string) => `${t}:deletion:${assertSafeId('confirmation code', code)}`,
    /** The pinned rows of one contact. */
    contactRows: (contactId: string) => `${t}:contact-rows:${encodePart(contactId)}`,
    /** One delivery's claim, named by `deliveryKeyDigest(contact, message key)`: scoped to the contact, the whole key hashed. */
    claim: (deliveryDigest: string) => `${t}:claim:${digestPart('delivery digest', deliveryDigest)}`,
    /** Claims whose turn has not committed yet, scored by when the sweeper should finish them (ms). */
    openClaims: `${t}:open-claims`,
    /** The finish-turn job of an open claim (its inbound), so the sweeper can run the turn again. */
    claimJob: (turnId: string) => `${t}:claim-job:${assertSafeId('turn id', turnId)}`,
    turn: (turnId: string) => `${t}:turn:${assertSafeId('turn id', turnId)}`,
    turnLog: `${t}:turns`,
    history: (contactId: string) => `${t}:history:${encodePart(contactId)}`,
    handoff: (contactId: string) => `${t}:handoff:${encodePart(contactId)}`,
    /** Contacts waiting for a person (the dashboard's handoff inbox), scored by when their silence ends (ms). */
    handoffIndex: `${t}:handoffs`,
    /** One hour's turn and delivery counts (the Health charts), named by the hour since the epoch. */
    metricsHour: (hour: number) => `${t}:metrics:h:${Math.trunc(hour)}`,
    /** Messenger, a tenant with several pages: the page a contact (a page-scoped id) wrote to, so replies use its token. */
    contactPage: (contactId: string) => `${t}:contact-page:${encodePart(contactId)}`,
    outbox: (turnId: string) => `${t}:outbox:${assertSafeId('turn id', turnId)}`,
    ledger: (turnId: string) => `${t}:ledger:${assertSafeId('turn id', turnId)}`,
    outboxPending: `${t}:outbox-pending`,
    /** One contact's messages still waiting for their reply (scored by message time): replies go out in that order. */
    replyOrder: (contactId: string) => `${t}:reply-order:${encodePart(contactId)}`,
    /** Pinned terms of a confirmation or approval: written once, never changed. */
    pinnedTerms: (id: string) => `${t}:pinned:${assertSafeId('pinned id', id)}`,
    /** Its status, the only part that changes (pending → approved | rejected | expired | …). */
    pinnedStatus: (id: string) => `${t}:pinned:${assertSafeId('pinned id', id)}:status`,
    /** The contact's one pending row for a call (`callDigest`): a repeat of the call reuses it. */
    pendingCall: (contactId: string, digest: string) =>
      `${t}:pending-call:${encodePart(contactId)}:${digestPart('call digest', digest)}`,
    /** The tenant's approval queue, scored by expiry (ms). */
    approvalQueue: `${t}:approvals`,
    deadLetters: `${t}:dead-letters`,
    /**
     * An alert's "already told" marker (SET NX, with a TTL): a dead letter, an outage of the
     * ManyChat key. At most one alert an item, however often its failure is seen again.
     */
    alertSent: (itemId: string) => `${t}:alert:${assertSafeId('alert item', itemId)}`,
    /** @upstash/ratelimit keys (sliding windows, each with its own TTL) live under this prefix. */
    rateLimitPrefix: `${t}:rl`,
    /** The dashboard's users and sessions (src/dashboard/auth/dashboard-keys.ts) live under this prefix. */
    dashboardPrefix: `${t}:dash`,
  };
}

/**
 * The digest that names a delivery: the contact and the whole message key, hashed. Two contacts
 * never share a delivery, and two keys that differ anywhere — even after a thousand characters —
 * never share a claim.
 */
export function deliveryKeyDigest(contactId: string, messageKey: string): Promise<string> {
  // A turn names its delivery up to four times (duplicate check, claim, start, reply order); the
  // isolate remembers the last few hundred digests rather than hashing the same words again.
  const input = `${contactId}\n${messageKey}`;
  let digest = recentDigests.get(input);
  if (!digest) {
    if (recentDigests.size >= 512) recentDigests.clear();
    digest = sha256Hex(input);
    recentDigests.set(input, digest);
  }
  return digest;
}
const recentDigests = new Map<string, Promise<string>>();

/** A global key: which tenants exist (the sweeper walks it). Holds ids only. */
export const TENANT_INDEX_KEY = 'tenants';

/**
 * A global key: the index of due work (core/storage/due-index.ts), member = tenant id, score = the
 * earliest time any of its queues holds due work. Here, not in due-index.ts, because the stores
 * whose atomic scripts lower a tenant's score name it, and due-index.ts takes their queues' keys
 * from those stores (an import back would be a cycle).
 */
export const DUE_INDEX_KEY = 'due-work';
/** Set once the due-work index holds every tenant's work (the first cron after the index existed seeds it). */
export const DUE_INDEX_SEEDED_KEY = 'due-work:seeded';

/**
 * The other global key: the operator's audit log (tenants created, secrets rotated, suspensions,
 * deletions, re-encryptions). Outside every tenant's prefix, so a tenant's deletion — which takes
 * its own audit log with it — stays on record. Holds tenant ids and summaries, never a secret.
 */
export const OPERATOR_AUDIT_KEY = 'operator:audit';

/**
 * A global key per Messenger page: the tenant that lists it (written when a config is saved). Only
 * a hint for the app-wide callback (`/v1/messenger/app/:appId`): an event is processed only when
 * the tenant's own config lists the page, its app id is the callback's and its app secret signed it.
 */
export function messengerPageOwnerKey(pageId: string): string {
  if (!/^\d{1,30}$/.test(pageId)) throw new Error('a Messenger page id is a digit string');
  return `messenger:page:${pageId}`;
}

/** A global set per Meta app: the tenants whose config names it (the app-wide callback's subscription check). */
export function messengerAppTenantsKey(appId: string): string {
  if (!/^\d{1,30}$/.test(appId)) throw new Error('a Meta app id is a digit string');
  return `messenger:app:${appId}:tenants`;
}
