import { inject } from 'vitest';
import { devSecretKeys } from '../../dev/stack.js';
import { startManyChatSandbox, type ManyChatSandbox, type RecordedCall } from '../../dev/manychat-sandbox.js';
import type { StagedAction } from '../../core/staged-action.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { TENANT_INDEX_KEY, TTL, tenantKeys } from '../../core/storage/keys.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoSandboxPage, demoTenantConfig } from '../../dev/demo-tenant.js';
import { createManyChatClient } from '../../outbox/manychat-client.js';
import type { ManyChatApi } from '../../core/actions/channel-api.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';

/**
 * Shared set-up for the outbox's Node tests: a private ManyChat sandbox per test file (faults and
 * recorded calls stay ours), the global stack's Upstash bridge (a shared Redis, so every test uses
 * its own tenant id and cleans up after itself).
 */

export const PAGE_ID = '2000001';
export const API_KEY = `${PAGE_ID}:outbox-test-key`;
export const FLOW_BROCHURE = 'content20250101000000_000001';
export const FLOW_TOUR = 'content20250101000000_000002';
export const WEBHOOK_SECRET = 'outbox-test-webhook-secret';
export const ADMIN_SECRET = 'outbox-test-admin-secret';

export async function startTestSandbox(): Promise<ManyChatSandbox> {
  return startManyChatSandbox({
    // The demo page's tags, fields and flows, under this suite's own page id and key.
    pages: [{ ...demoSandboxPage(), pageId: PAGE_ID, apiKey: API_KEY }],
    // Retries within a second would otherwise hit the sandbox's per-second limits in a busy test.
    enforceRateLimits: false,
  });
}

export function connect(): RedisSession {
  return RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
}

let seq = 0;
/** Ids unique across runs and files: the Redis may be shared. */
export function uniqueId(prefix: string): string {
  seq++;
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}${seq}`;
}

/** A subscriber id the sandbox knows (numeric, unique), inside the 24 h window unless told otherwise. */
export function newSubscriber(sandbox: ManyChatSandbox, opts: { lastInteraction?: string } = {}): string {
  const id = String(Math.floor(1e9 + Math.random() * 8e9));
  sandbox.addSubscriber({
    pageId: PAGE_ID,
    id,
    firstName: 'Test',
    ...(opts.lastInteraction ? { lastInteraction: opts.lastInteraction } : {}),
  });
  return id;
}

export function client(sandbox: ManyChatSandbox, timeoutMs = 2000): ManyChatApi {
  return createManyChatClient({
    baseUrl: sandbox.url,
    apiKey: API_KEY,
    fetch: (input, init) => fetch(input, init),
    timeoutMs,
  });
}

type ActionSpec = Pick<StagedAction, 'kind' | 'args'> & Partial<StagedAction>;

export function action(turnId: string, n: number, spec: ActionSpec): StagedAction {
  const idempotent = spec.idempotent ?? !(spec.kind === 'send_flow' || spec.kind === 'send_content');
  return {
    id: `${turnId}.a${n}`,
    tool: `tool_${spec.kind}`,
    effect: 'write',
    gate: 'none',
    summary: `${spec.kind} ${JSON.stringify(spec.args)}`,
    ...spec,
    idempotent,
  };
}

/** Writes an entry as writeTurnCommit does: the entry and its pending-set member in one MULTI. */
export async function writeEntry(session: RedisSession, entry: OutboxEntry): Promise<void> {
  const keys = tenantKeys(entry.tenantId);
  await session.multi((m) => {
    m.set(keys.outbox(entry.turnId), JSON.stringify(entry), { ex: TTL.outboxSeconds });
    m.zadd(keys.outboxPending, { score: Date.parse(entry.createdAt), member: entry.turnId });
  });
}

export function entryFor(
  tenantId: string,
  turnId: string,
  contactId: string,
  actions: StagedAction[],
  createdAt = new Date(),
): OutboxEntry {
  return {
    turnId,
    tenantId,
    channel: 'manychat',
    contactId,
    actions,
    state: 'pending',
    createdAt: createdAt.toISOString(),
    attempts: 0,
  };
}

/** A tenant whose ManyChat key is the test page's (needed by the HTTP routes and the sweeper). */
export async function seedTenant(session: RedisSession, tenantId: string): Promise<void> {
  const saved = await saveTenant(
    session,
    { ...demoTenantConfig(tenantId), tenantId },
    {
      plain: { webhookSecret: WEBHOOK_SECRET, adminSecret: ADMIN_SECRET, manychatApiKey: API_KEY },
      keys: await devSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
}

/** Removes everything a test tenant wrote (the Redis outlives the test run). */
export async function dropTenant(session: RedisSession, tenantId: string): Promise<void> {
  const keys = await session.one((r) => r.keys(`t:${tenantId}:*`));
  await session.pipeline((p) => {
    if (keys.length) p.del(...keys);
    p.srem(TENANT_INDEX_KEY, tenantId);
  });
}

/** The ManyChat API calls the sandbox recorded for one subscriber, in order. */
export function callsFor(sandbox: ManyChatSandbox, subscriberId: string): RecordedCall[] {
  return sandbox.calls().filter((c) => {
    const body = c.body as { subscriber_id?: unknown } | null;
    return body !== null && typeof body === 'object' && String(body.subscriber_id) === subscriberId;
  });
}

/** Short names of the calls that performed something (answered 2xx). */
export function performed(calls: RecordedCall[]): string[] {
  return calls.filter((c) => c.outcome === 'ok').map((c) => c.path.split('/').pop() ?? c.path);
}
