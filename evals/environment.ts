import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { demoTenantConfig } from '../dev/demo-tenant.js';
import { startModelSandbox, type ModelSandbox } from '../dev/model-sandbox.js';
import { ensureRedis, freePort, type RedisHandle } from '../dev/redis-server.js';
import { ROOT, startLocalStack, type LocalStack, devSecretKeys } from '../dev/stack.js';
import { RedisSession } from '../core/storage/redis-session.js';
import { PAGE_INBOX_APP_ID, type TenantConfig, type TenantConfigInput } from '../core/tenant/tenant-config.js';
import { saveTenant } from '../src/tenants/tenant-store.js';
import { deepMerge, type EvalCase } from './case-format.js';
import { startNotificationReceiver, type NotificationReceiver } from './notification-receiver.js';

/**
 * What a run needs: the local stack with `wrangler dev`, the Worker pointed at the model sandbox
 * (`OPENAI_API_MODE=chat`, so the real `@ai-sdk/openai` chat provider talks to it), and a Redis
 * session on the Upstash REST bridge for reading turn records.
 *
 * The run has a redis-server of its own (no persistence, stopped at the end): expiry cases run the
 * Worker's cron, which walks every tenant in the Redis it sees (outbox sweep, approval expiry);
 * on a shared Redis it would publish and expire other runs' and other tests' entries.
 */
export interface EvalEnvironment {
  stack: LocalStack;
  workerUrl: string;
  /** Null with --live. */
  model: ModelSandbox | null;
  session: RedisSession;
  live: boolean;
  /** The tenants' notification channel (tenants whose case spec says `notify`). */
  notifications: NotificationReceiver;
  /** Error lines the Worker (wrangler dev) logged during the run, distinct, at most 50. */
  workerErrors: string[];
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  live?: boolean;
  log?: (line: string) => void;
  /** QStash broker retry base (ms); small so fault cases settle fast. */
  qstashRetryBaseMs?: number;
}

export class LiveModelUnavailable extends Error {
  override name = 'LiveModelUnavailable';
}

export async function startEvalEnvironment(opts: EnvironmentOptions = {}): Promise<EvalEnvironment> {
  const live = opts.live ?? false;
  if (live && !process.env.OPENAI_API_KEY) {
    throw new LiveModelUnavailable(
      '--live needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL, OPENAI_API_MODE) in the environment; none is set.',
    );
  }
  const model = live ? null : await startModelSandbox();
  let redis: RedisHandle;
  try {
    // A port nothing listens on, so ensureRedis starts a server of our own.
    redis = await ensureRedis(`redis://127.0.0.1:${await freePort()}`);
  } catch (err) {
    await model?.close();
    throw err;
  }
  const workerErrors: string[] = [];
  const log = (line: string) => {
    opts.log?.(line);
    // wrangler prints "✘ [ERROR] …" (with colour codes) for uncaught errors and console.error.
    const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
    if (/\[worker\].*(\[ERROR\]|unhandled|Uncaught)/.test(plain) && workerErrors.length < 50) {
      const text = plain.replace(/^\[worker\]\s*(✘\s*)?/, '').trim();
      if (!workerErrors.includes(text)) workerErrors.push(text);
    }
  };
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      withWorker: true,
      stateDir: join(ROOT, '.local', 'evals'),
      qstashRetryBaseMs: opts.qstashRetryBaseMs ?? 100,
      log,
      redisUrl: redis.url,
      workerVars: model ? { OPENAI_API_KEY: 'sandbox', OPENAI_BASE_URL: model.baseURL, OPENAI_API_MODE: 'chat' } : {},
    });
  } catch (err) {
    await model?.close();
    await redis.close();
    throw err;
  }
  const session = RedisSession.connect(stack.facts.upstash.url, stack.facts.upstash.token);
  const notifications = await startNotificationReceiver();
  return {
    stack,
    notifications,
    workerUrl: stack.facts.workerUrl!,
    model,
    session,
    live,
    workerErrors,
    close: async () => {
      await notifications.close();
      await stack.close();
      await model?.close();
      await redis.close();
    },
  };
}

/** One tenant of a case: its id, secrets, config and page (a case has "main" and any it declares in `tenants`). */
export interface TenantWorld {
  tenantId: string;
  /** The webhook secret (header x-staged-agent-secret). */
  secret: string;
  /** The tenant API's admin secret (Authorization: Bearer), for approvals. */
  adminSecret: string;
  config: TenantConfig;
  pageId: string;
  /** A Messenger case's app secret (signs its webhooks); the page token is in the sandbox. */
  messenger: { appSecret: string } | null;
}

/** One case's world: its own tenant(s), each with its own ManyChat page (so faults and rate limits are its own), its contacts. */
export interface CaseWorld extends TenantWorld {
  contacts: Map<string, string>;
  /** The ManyChat channel the case's contacts write on (Facebook for `manychat` and Messenger cases). */
  manyChatChannel: 'facebook' | 'instagram' | 'whatsapp' | 'telegram';
  /** Every tenant of the case by alias, "main" (this world's own fields) included. */
  tenants: Map<string, TenantWorld>;
  /** A page id no tenant lists (`page: "unowned"`). */
  unownedPageId: string;
  /** The Meta app all the case's tenants are on (`messengerApp`), else null. */
  messengerAppId: string | null;
}

/** The ManyChat channel of a case: its `channel`, where that is one of ManyChat's. */
export function manyChatChannelOf(c: Pick<EvalCase, 'channel'>): CaseWorld['manyChatChannel'] {
  return c.channel === 'instagram' || c.channel === 'whatsapp' || c.channel === 'telegram' ? c.channel : 'facebook';
}

let pageCounter = 0;
let contactCounter = 0;
const runTag = randomBytes(3).toString('hex');

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'case'
  );
}

const FIELD_TYPES: Record<string, 'text' | 'number' | 'boolean' | 'date'> = {
  text: 'text',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
};

const runDigits = String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0');

export class TenantSetupError extends Error {
  override name = 'TenantSetupError';
}

/** Above any menu: a tenant with this size never gets a shortlist (the tenant config's maximum). */
export const SHORTLIST_OFF_TOKENS = 1_000_000;

/** Seeds the case's tenants (demo + each one's overrides), a ManyChat page for each, and its contacts. */
export async function setupCaseWorld(
  env: EvalEnvironment,
  c: EvalCase,
  label: string,
  options: { hedging?: boolean; shortlist?: boolean } = {},
): Promise<CaseWorld> {
  // One Meta app for the case's tenants: one app id and one app secret (Meta signs with the app's).
  const app =
    c.channel === 'messenger' && c.messengerApp
      ? { appId: `${6_000_000 + ++pageCounter}${runDigits}`, appSecret: `app-${randomBytes(8).toString('hex')}` }
      : null;
  const tenants = new Map<string, TenantWorld>();
  tenants.set('main', await seedTenant(env, c, label, c.tenant, options, app));
  for (const [alias, spec] of Object.entries(c.tenants))
    tenants.set(alias, await seedTenant(env, c, `${label}-${alias}`, spec, options, app));
  const contacts = new Map<string, string>();
  for (const turn of c.turns) {
    if (contacts.has(turn.contact)) continue;
    const id = String(800_000_000_000 + ++contactCounter);
    // The contact exists on every page of the case: which page it writes to is the turn's choice.
    for (const t of tenants.values())
      env.stack.manychat.addSubscriber({
        pageId: t.pageId,
        id,
        firstName: turn.firstName,
        lastName: 'Eval',
        ...(manyChatChannelOf(c) !== 'facebook' ? { channel: manyChatChannelOf(c) } : {}),
      });
    contacts.set(turn.contact, id);
  }
  return {
    ...tenants.get('main')!,
    contacts,
    manyChatChannel: manyChatChannelOf(c),
    tenants,
    unownedPageId: `${7_000_000 + ++pageCounter}${runDigits}`,
    messengerAppId: app?.appId ?? null,
  };
}

/** Seeds a unique tenant (demo + the spec's overrides) and a ManyChat page (and Messenger page) for it. */
async function seedTenant(
  env: EvalEnvironment,
  c: EvalCase,
  label: string,
  spec: EvalCase['tenant'],
  options: { hedging?: boolean; shortlist?: boolean },
  app: { appId: string; appSecret: string } | null,
): Promise<TenantWorld> {
  const tenantId = `ev-${slug(label)}-${runTag}${(++pageCounter).toString(36)}`;
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  const adminSecret = `admin-${randomBytes(8).toString('hex')}`;
  // Unique across runs too: a page belongs to one tenant, and an earlier run's tenants may still be stored.
  const pageId = `${5_000_000 + pageCounter}${runDigits}`;
  const apiKey = `${pageId}:eval-${randomBytes(6).toString('hex')}`;
  const merged = deepMerge<TenantConfigInput>(demoTenantConfig(tenantId), spec.overrides);
  // The run decides whether tenants hedge (to compare on and off); the case's other hedging settings stand.
  const input = {
    ...merged,
    tenantId,
    ...(options.hedging === undefined ? {} : { hedging: { ...merged.hedging, enabled: options.hedging } }),
    // The run may turn the tool shortlist off (to compare the full menu); on, the case's own size stands.
    ...(options.shortlist === false ? { shortlist: { maxToolTokens: SHORTLIST_OFF_TOKENS } } : {}),
    ...(spec.notify
      ? { notifications: { approvals: { url: env.notifications.urlFor(tenantId), format: spec.notify } } }
      : {}),
  };
  const messenger =
    c.channel === 'messenger'
      ? {
          appSecret: app?.appSecret ?? `app-${randomBytes(8).toString('hex')}`,
          pageAccessToken: `page-${randomBytes(8).toString('hex')}`,
        }
      : null;
  // A Messenger tenant owns its page (events for any other are ignored); an escalation reaches a person through the Page Inbox.
  if (messenger)
    Object.assign(input, {
      messenger: {
        handoverAppId: PAGE_INBOX_APP_ID,
        ...input.messenger,
        ...(app ? { appId: app.appId } : {}),
        pages: [{ id: pageId }],
      },
    });
  const plain = {
    webhookSecret: secret,
    adminSecret,
    manychatApiKey: apiKey,
    ...(messenger
      ? { messengerAppSecret: messenger.appSecret, messengerPageAccessToken: messenger.pageAccessToken }
      : {}),
  };
  const saved = await saveTenant(env.session, input, { plain, keys: await devSecretKeys() });
  if (!saved.ok)
    throw new TenantSetupError(
      `case ${c.name}: the tenant overrides give an invalid config: ${saved.problems.join('; ')}`,
    );
  const config = saved.config;
  env.stack.manychat.addPage({
    pageId,
    apiKey,
    tags: config.tags.map((t, i) => ({ id: i + 1, name: t.name })),
    customFields: config.fields.map((f, i) => ({ id: 100 + i, name: f.name, type: FIELD_TYPES[f.type] ?? 'text' })),
    flows: config.flows.map((f) => f.ns),
  });
  if (messenger) env.stack.manychat.addMessengerPage({ pageId, accessToken: messenger.pageAccessToken });
  return {
    tenantId,
    secret,
    adminSecret,
    config,
    pageId,
    messenger: messenger ? { appSecret: messenger.appSecret } : null,
  };
}
