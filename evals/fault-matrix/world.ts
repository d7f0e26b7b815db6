import { randomBytes } from 'node:crypto';
import { safetyIdentifierFor, type ScriptStep } from '../../dev/model-sandbox.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { devSecretKeys } from '../../dev/stack.js';
import type { TenantConfig, TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import type { FaultEnvironment } from './environment.js';

/**
 * One row's world: a tenant of its own (the demo config, every write tool ungated so a turn
 * stages exactly what the row scripts), a ManyChat page of its own (so a row's faults and rate
 * limits touch no other row, and rows can run side by side), and fresh contacts.
 */
export interface RowWorld {
  tenantId: string;
  secret: string;
  adminSecret: string;
  pageId: string;
  config: TenantConfig;
}

let counter = 0;
const runTag = randomBytes(3).toString('hex');

/** The demo tenant's tools, none of them gated: the matrix is about delivery, not confirmation. */
function ungatedDemo(tenantId: string, overrides: Partial<TenantConfigInput>): TenantConfigInput {
  const demo = demoTenantConfig(tenantId);
  return {
    ...demo,
    manifest: {
      ...demo.manifest,
      untag_contact: { effect: 'write', confirm: 'never' },
      record_choice: { effect: 'write', confirm: 'never' },
    },
    ...overrides,
    tenantId,
  };
}

export async function createWorld(
  env: FaultEnvironment,
  label: string,
  overrides: Partial<TenantConfigInput> = {},
): Promise<RowWorld> {
  const n = ++counter;
  const tenantId = `fm-${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 30)}-${runTag}${n.toString(36)}`.replace(/-+/g, '-');
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  const adminSecret = `admin-${randomBytes(8).toString('hex')}`;
  const pageId = String(6_000_000 + n);
  const apiKey = `${pageId}:faults-${randomBytes(6).toString('hex')}`;
  const saved = await saveTenant(env.session, ungatedDemo(tenantId, overrides), {
    plain: { webhookSecret: secret, adminSecret, manychatApiKey: apiKey },
    keys: await devSecretKeys(),
  });
  if (!saved.ok) throw new Error(`row ${label}: invalid tenant config: ${saved.problems.join('; ')}`);
  env.stack.manychat.addPage({
    pageId,
    apiKey,
    tags: saved.config.tags.map((t, i) => ({ id: i + 1, name: t.name })),
    customFields: saved.config.fields.map((f, i) => ({ id: 100 + i, name: f.name, type: 'text' as const })),
    flows: saved.config.flows.map((f) => f.ns),
  });
  return { tenantId, secret, adminSecret, pageId, config: saved.config };
}

let contactCounter = 0;
/** A contact the sandbox knows (its 24-hour window open), optionally already carrying tags. */
export function newContact(env: FaultEnvironment, world: RowWorld, tags: string[] = []): string {
  const id = String(900_000_000_000 + ++contactCounter);
  env.stack.manychat.addSubscriber({ pageId: world.pageId, id, firstName: 'Fault', lastName: 'Matrix', tags });
  return id;
}

/** What this contact's model calls will answer, in order. */
export function scriptModel(env: FaultEnvironment, world: RowWorld, contactId: string, steps: ScriptStep[]): void {
  env.model.script({ safetyIdentifier: safetyIdentifierFor(world.tenantId, contactId), steps });
}

export interface WebhookAnswer {
  status: number;
  ms: number;
  turnId: string | null;
  deferred: boolean;
  duplicateOf: string | null;
  storageDown: boolean;
  /** The Dynamic Block's first text message, when the answer is one. */
  replyText?: string;
  error?: string;
}

export interface SentMessage {
  contactId: string;
  messageKey: string;
  answer: WebhookAnswer;
}

export async function postWebhook(
  env: FaultEnvironment,
  world: RowWorld,
  contactId: string,
  text: string,
  messageKey = `mk-${randomBytes(6).toString('hex')}`,
): Promise<SentMessage> {
  const started = performance.now();
  try {
    const res = await fetch(`${env.workerUrl}/v1/manychat/${world.tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': world.secret },
      body: JSON.stringify({ contact: { id: contactId }, text, message_key: messageKey }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.text();
    const h = (name: string) => res.headers.get(name);
    return {
      contactId,
      messageKey,
      answer: {
        status: res.status,
        ms: performance.now() - started,
        turnId: h('x-turn-id'),
        deferred: h('x-turn-deferred') === '1',
        duplicateOf: h('x-duplicate-of'),
        storageDown: h('x-storage-down') === '1',
        ...(firstText(body) !== undefined ? { replyText: firstText(body) } : {}),
        ...(res.status >= 400 ? { error: body.slice(0, 200) } : {}),
      },
    };
  } catch (err) {
    return {
      contactId,
      messageKey,
      answer: {
        status: 0,
        ms: performance.now() - started,
        turnId: null,
        deferred: false,
        duplicateOf: null,
        storageDown: false,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      },
    };
  }
}

function firstText(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { content?: { messages?: { text?: unknown }[] } };
    const text = parsed.content?.messages?.[0]?.text;
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the Worker's cron once, as wrangler dev allows locally. */
export async function runCron(env: FaultEnvironment): Promise<number> {
  const res = await fetch(`${env.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`, {
    signal: AbortSignal.timeout(60_000),
  });
  await res.text();
  return res.status;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
