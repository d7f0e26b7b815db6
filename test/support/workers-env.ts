import { env } from 'cloudflare:test';
import { inject } from 'vitest';
import { RedisSession } from '../../core/storage/redis-session.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { secretKeysFrom, type PlainSecrets, type SecretKeys } from '../../core/tenant/tenant-secrets.js';
import type { TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig, DEMO_MANYCHAT_API_KEY, DEMO_PAGE_ID } from '../../dev/demo-tenant.js';

export const workerEnv = env as unknown as Record<string, string>;

export function session(): RedisSession {
  return RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
}

let counter = 0;
export function uniqueId(prefix: string): string {
  counter++;
  return `${prefix}${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e6)}`;
}

/** A fresh tenant (demo config plus overrides) with its own webhook secret. */
export async function seedTenant(
  overrides: Partial<TenantConfigInput> = {},
  /** More secrets to seal with the tenant's (a sealed notification URL, say). */
  extraSecrets: Partial<PlainSecrets> = {},
): Promise<{ tenantId: string; secret: string; adminSecret: string }> {
  const tenantId = uniqueId('t');
  const secret = `secret-${tenantId}`;
  const adminSecret = `admin-${tenantId}`;
  const saved = await saveTenant(
    session(),
    { ...demoTenantConfig(tenantId), ...overrides, tenantId },
    {
      plain: { webhookSecret: secret, adminSecret, manychatApiKey: DEMO_MANYCHAT_API_KEY, ...extraSecrets },
      keys: await testSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  return { tenantId, secret, adminSecret };
}

/** A contact id the ManyChat sandbox knows (so performed actions succeed). */
export async function newContact(extra: Record<string, unknown> = {}): Promise<string> {
  const id = String(Math.floor(Math.random() * 1e12));
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/subscribers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pageId: DEMO_PAGE_ID, id, firstName: 'Test', ...extra }),
  });
  if (!res.ok) throw new Error(`sandbox refused subscriber: ${await res.text()}`);
  return id;
}

export interface SandboxCall {
  path: string;
  body: Record<string, unknown>;
  status: number;
}

/** Every call the ManyChat sandbox recorded for one subscriber. */
export async function sandboxCallsFor(contactId: string): Promise<SandboxCall[]> {
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/calls`);
  const all = (await res.json()) as { calls?: SandboxCall[] } | SandboxCall[];
  const calls = Array.isArray(all) ? all : (all.calls ?? []);
  return calls.filter((c) => c.body && String((c.body as Record<string, unknown>).subscriber_id) === contactId);
}

/** The keys the Worker under test seals and hashes tenant secrets with (its own environment's). */
export function testSecretKeys(): Promise<SecretKeys> {
  return secretKeysFrom(workerEnv.SECRETS_ENCRYPTION_KEYS!, workerEnv.SECRETS_HASH_KEY!);
}
