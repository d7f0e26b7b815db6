/**
 * Every Redis key the product writes. Tenant data lives under `t:{tenant}:` so a read or write
 * can only reach the tenant it names; ids are validated before they reach a key.
 */
const SAFE_ID = /^[A-Za-z0-9_.:@-]{1,200}$/;

export function assertSafeId(kind: string, value: string): string {
  if (!SAFE_ID.test(value)) throw new Error(`${kind} has characters that cannot be part of a key`);
  return value;
}

/** Message keys come from outside (a template, a mid): hash-free but bounded and escaped. */
function encodePart(value: string): string {
  return encodeURIComponent(value).slice(0, 300);
}

export const TTL = {
  claimSeconds: 3 * 24 * 3600, // Messenger retries for up to 36 h
  turnSeconds: 30 * 24 * 3600,
  historySeconds: 7 * 24 * 3600,
  outboxSeconds: 30 * 24 * 3600,
  /** Pinned rows outlive their expiry so a late click still finds them (and does nothing). */
  pinnedSeconds: 14 * 24 * 3600,
} as const;

export function tenantKeys(tenantId: string) {
  const t = `t:${assertSafeId('tenant id', tenantId)}`;
  return {
    config: `${t}:config`,
    secrets: `${t}:secrets`,
    claim: (messageKey: string) => `${t}:claim:${encodePart(messageKey)}`,
    turn: (turnId: string) => `${t}:turn:${assertSafeId('turn id', turnId)}`,
    turnLog: `${t}:turns`,
    history: (contactId: string) => `${t}:history:${encodePart(contactId)}`,
    handoff: (contactId: string) => `${t}:handoff:${encodePart(contactId)}`,
    outbox: (turnId: string) => `${t}:outbox:${assertSafeId('turn id', turnId)}`,
    ledger: (turnId: string) => `${t}:ledger:${assertSafeId('turn id', turnId)}`,
    outboxPending: `${t}:outbox-pending`,
    /** Pinned terms of a confirmation or approval: written once, never changed. */
    pinnedTerms: (id: string) => `${t}:pinned:${assertSafeId('pinned id', id)}`,
    /** Its status, the only part that changes (pending → approved | rejected | expired | …). */
    pinnedStatus: (id: string) => `${t}:pinned:${assertSafeId('pinned id', id)}:status`,
    /** The tenant's approval queue, scored by expiry (ms). */
    approvalQueue: `${t}:approvals`,
    deadLetters: `${t}:dead-letters`,
    /** @upstash/ratelimit keys (sliding windows, each with its own TTL) live under this prefix. */
    rateLimitPrefix: `${t}:rl`,
  };
}

/** The one global key: which tenants exist (the sweeper walks it). Holds ids only. */
export const TENANT_INDEX_KEY = 'tenants';
