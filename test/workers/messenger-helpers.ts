import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { inject } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { PAGE_INBOX_APP_ID, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { deliverOutboxEntry, type DeliveryResult } from '../../outbox/deliver-entry.js';
import { createMessengerClient } from '../../outbox/messenger-client.js';
import { signHubBody } from '../../src/channels/messenger/hub-signature.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { reply } from '../support/scripted-model.js';
import { session, testSecretKeys, uniqueId, workerEnv } from '../support/workers-env.js';
import type { AppUnderTest } from './turn-helpers.js';

/** A tenant with Messenger secrets, and its page in the Send API sandbox. */
export interface MessengerTenant {
  tenantId: string;
  appSecret: string;
  verifyToken: string;
  pageToken: string;
  pageId: string;
  /** The tenant API's admin credential (handoff release). */
  adminSecret: string;
}

/** `opts.appSecret`: the Meta app's secret when several tenants share one app (an agency); default the tenant's own. */
export async function seedMessengerTenant(
  overrides: Partial<TenantConfigInput> = {},
  opts: { appSecret?: string } = {},
): Promise<MessengerTenant> {
  const tenantId = uniqueId('m');
  const pageId = String(2_000_000_000 + Math.floor(Math.random() * 1e9));
  const t: MessengerTenant = {
    tenantId,
    appSecret: opts.appSecret ?? `app-secret-${tenantId}`,
    verifyToken: `verify-${tenantId}`,
    pageToken: `page-token-${tenantId}`,
    pageId,
    adminSecret: `admin-${tenantId}`,
  };
  const base = { ...demoTenantConfig(tenantId), ...overrides, tenantId };
  // The tenant owns its page; an escalation hands the thread to the Page Inbox (unless a test says otherwise).
  const messenger = { handoverAppId: PAGE_INBOX_APP_ID, ...base.messenger, pages: [{ id: pageId }] };
  const saved = await saveTenant(
    session(),
    { ...base, messenger },
    {
      plain: {
        webhookSecret: `secret-${tenantId}`,
        adminSecret: t.adminSecret,
        manychatApiKey: '1:unused',
        messengerAppSecret: t.appSecret,
        messengerPageAccessToken: t.pageToken,
        messengerVerifyToken: t.verifyToken,
      },
      keys: await testSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  await sandbox('/__sandbox/messenger-pages', { pageId, accessToken: t.pageToken });
  return t;
}

async function sandbox(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${inject('manychatUrl')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox refused ${path}: ${await res.text()}`);
}

/** A PSID the Send API sandbox knows, its window opened `lastInteraction` (default now). */
export async function newPsid(t: MessengerTenant, lastInteraction?: string): Promise<string> {
  const id = String(Math.floor(Math.random() * 1e15));
  await sandbox('/__sandbox/subscribers', { pageId: t.pageId, id, ...(lastInteraction ? { lastInteraction } : {}) });
  return id;
}

export interface SentMessage {
  recipient: string;
  body: Record<string, unknown>;
  status: number;
}

/** What the Send API sandbox received for one PSID, in order. */
export async function sentTo(psid: string): Promise<SentMessage[]> {
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/calls?api=messenger`);
  const { calls } = (await res.json()) as { calls: { body: Record<string, unknown>; status: number }[] };
  return calls
    .filter((c) => (c.body?.recipient as { id?: string } | undefined)?.id === psid)
    .map((c) => ({ recipient: psid, body: c.body, status: c.status }));
}

export function textOf(m: SentMessage): string | undefined {
  return (m.body.message as { text?: string } | undefined)?.text;
}

/** A text message item from `psid` to the page. */
export function textItem(t: MessengerTenant, psid: string, mid: string, text: string, timestamp: number) {
  return { sender: { id: psid }, recipient: { id: t.pageId }, timestamp, message: { mid, text } };
}

export function webhookBody(t: MessengerTenant, ...entries: unknown[][]) {
  return { object: 'page', entry: entries.map((messaging, i) => ({ id: t.pageId, time: Date.now() + i, messaging })) };
}

/** Posts raw bytes to the Messenger webhook, signed with `signWith` (default the tenant's app secret; null: no header). */
export async function postMessenger(
  app: AppUnderTest,
  t: MessengerTenant,
  body: string | object,
  opts: { signWith?: string | null; signOver?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const secret = opts.signWith === undefined ? t.appSecret : opts.signWith;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(secret !== null ? { 'x-hub-signature-256': await signHubBody(opts.signOver ?? raw, secret) } : {}),
    ...opts.headers,
  };
  return app.fetch(
    new Request(`http://worker.test/v1/messenger/${t.tenantId}`, { method: 'POST', headers, body: raw }),
  );
}

/** Every turn the tenant committed (its turn log). */
export async function turnIds(tenantId: string): Promise<string[]> {
  return (await session().one((r) => r.zrange(tenantKeys(tenantId).turnLog, 0, -1))) as string[];
}

/** The outbox delivery of one entry against the Send API sandbox (what QStash's call performs). */
export function deliverMessenger(
  t: MessengerTenant,
  turnId: string,
  opts: { now?: () => Date; allowedMessageTags?: string[] } = {},
): Promise<DeliveryResult> {
  const now = opts.now ?? (() => new Date());
  const messenger = createMessengerClient({
    graphUrl: workerEnv.MESSENGER_GRAPH_URL!,
    pageAccessToken: t.pageToken,
    fetch: (i, init) => fetch(i, init),
    timeoutMs: 5000,
    allowedMessageTags: opts.allowedMessageTags ?? [],
    now: () => now().getTime(),
  });
  return deliverOutboxEntry({ session: session(), tenantId: t.tenantId, turnId, apis: { messenger }, now });
}

/** A model that answers every message with "You said: <the message>" (so tests can tell replies apart), in one call. */
export function echoModel() {
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'echo-model',
    doGenerate: async (options: LanguageModelV4CallOptions) => {
      const users = options.prompt.filter((m) => m.role === 'user');
      const last = JSON.stringify(users.at(-1)?.content ?? '');
      const said = /source=\\"contact message\\">\\n(.*?)\\n<\/untrusted-data>/.exec(last)?.[1] ?? '?';
      return {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: `c_${crypto.randomUUID()}`,
            toolName: 'reply',
            input: JSON.stringify(reply(`You said: ${said}`)),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}
