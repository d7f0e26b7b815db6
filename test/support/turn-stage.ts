import type { LanguageModel } from 'ai';
import { afterAll } from 'vitest';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { DeliveryMessage } from '../../core/outbox-entry.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { parseTenantConfig, type TenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import type { TurnContext, TurnDeps } from '../../src/turn/turn-context.js';
import { turnContext } from '../../src/turn/turn-engine.js';
import { scriptedModel } from './scripted-model.js';
import { session, uniqueId } from './workers-env.js';

/**
 * Builders for the unit tests beside each turn stage (src/turn/*.test.ts): a fresh tenant id per
 * config (never saved to the tenant index, so the sweeper never walks it), an inbound message,
 * the stage's deps and context. Redis is the real one; the publisher records instead of
 * publishing (what QStash does with a message is the outbox's tests' business).
 */

const tenantsToClean = new Set<string>();

// Registered when a test file imports this module (collection time), so it runs after that file's tests.
afterAll(async () => {
  const s = session();
  for (const tenantId of tenantsToClean) {
    const keys = (await s.one((r) => r.keys(`t:${tenantId}:*`))) as string[];
    if (keys.length) await s.one((r) => r.del(...keys));
  }
  tenantsToClean.clear();
});

/** The demo studio's config under a fresh tenant id (its keys are deleted after the file's tests). */
export function stageConfig(overrides: Partial<TenantConfigInput> = {}): TenantConfig {
  const tenantId = uniqueId('tst');
  tenantsToClean.add(tenantId);
  const parsed = parseTenantConfig({ ...demoTenantConfig(tenantId), ...overrides, tenantId });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
}

export function inboundFor(config: TenantConfig, text: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    tenantId: config.tenantId,
    channel: 'manychat',
    contactId: String(1_000_000 + Math.floor(Math.random() * 1e9)),
    messageKey: `k:${uniqueId('m')}`,
    text,
    contact: { fields: {} },
    receivedAt: new Date().toISOString(),
    ...extra,
  };
}

export function recordingPublisher(fail = false): { publisher: OutboxPublisher; published: DeliveryMessage[] } {
  const published: DeliveryMessage[] = [];
  return {
    published,
    publisher: {
      publish: async (message) => {
        published.push(message);
        if (fail) throw new Error('QStash is down');
      },
    },
  };
}

export const PIN_SECRET = 'stage-test-pin-secret';

export function stageDeps(overrides: Partial<TurnDeps> = {}): TurnDeps & { published: DeliveryMessage[] } {
  const { publisher, published } = recordingPublisher();
  return {
    session: session(),
    model: scriptedModel([]) as LanguageModel,
    modelId: 'scripted-model',
    guardrails: [],
    publisher,
    pinSecret: PIN_SECRET,
    ...overrides,
    published,
  };
}

/** A live turn's context from the engine's factory (turn-engine.ts), with any field replaced. */
export function stageContext(
  config: TenantConfig,
  inbound: InboundMessage,
  overrides: Partial<TurnContext> = {},
): TurnContext {
  return {
    ...turnContext('live', { turnId: `turn_${uniqueId('x')}`, inbound, config, history: [], inHandoffUntil: null }),
    ...overrides,
  };
}

/** The value stored under one of the tenant's keys, parsed (null when absent). */
export async function stored(tenantId: string, key: (keys: ReturnType<typeof tenantKeys>) => string): Promise<unknown> {
  return parseJson(await session().one((r) => r.get(key(tenantKeys(tenantId)))));
}
