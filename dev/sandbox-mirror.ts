import type { RedisSession } from '../core/storage/redis-session.js';
import { parseJson } from '../core/storage/redis-session.js';
import { TENANT_INDEX_KEY, tenantKeys } from '../core/storage/keys.js';
import { isTenantId } from '../core/tenant/tenant-id.js';
import { parseTenantConfig } from '../core/tenant/tenant-config.js';
import { openTenantSecrets, StoredSecretsSchema, type SecretKeys } from '../core/tenant/tenant-secrets.js';
import type { ManyChatSandbox, SandboxPage } from './manychat-sandbox.js';

/**
 * The local stack's ManyChat mirrors what a business has set up in ManyChat: the flows, tags and
 * fields a tenant's config names exist on its page in the sandbox. In real life the business
 * creates them in ManyChat first and then names them in the config; locally there is no
 * ManyChat to create them in, so every saved config (a tenant's `rev` moved) is mirrored into the
 * sandbox page its ManyChat API key names — created if new. It opens the tenant's sealed key with
 * the local stack's own keys (dev/stack.ts), which is why this can exist only locally.
 */
export interface SandboxMirror {
  /** Mirrors every tenant whose config changed since the last pass. */
  syncNow(): Promise<void>;
  stop(): void;
}

export function mirrorTenantsIntoSandbox(opts: {
  session: RedisSession;
  sandbox: ManyChatSandbox;
  keys: SecretKeys;
  everyMs: number;
  log: (line: string) => void;
}): SandboxMirror {
  const seenRev = new Map<string, string>();
  let running: Promise<void> | null = null;
  const syncNow = () => {
    running ??= syncAll(opts, seenRev).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(
    () =>
      void syncNow().catch((err: unknown) =>
        opts.log(`[sandbox] mirror failed: ${err instanceof Error ? err.message : String(err)}`),
      ),
    opts.everyMs,
  );
  timer.unref();
  return { syncNow, stop: () => clearInterval(timer) };
}

async function syncAll(
  opts: { session: RedisSession; sandbox: ManyChatSandbox; keys: SecretKeys; log: (line: string) => void },
  seenRev: Map<string, string>,
): Promise<void> {
  const ids = ((await opts.session.one((r) => r.smembers(TENANT_INDEX_KEY))) as unknown[]).filter(
    (t): t is string => typeof t === 'string' && isTenantId(t),
  );
  if (!ids.length) return;
  // One round trip for every tenant's revision: a config saved moves it.
  const revs = (await opts.session.one((r) => r.mget(...ids.map((id) => tenantKeys(id).rev)))) as unknown[];
  for (const [i, tenantId] of ids.entries()) {
    const k = tenantKeys(tenantId);
    const rev = String(revs[i]);
    if (seenRev.get(tenantId) === rev) continue;
    seenRev.set(tenantId, rev);
    const [rawConfig, rawSecrets] = await Promise.all([
      opts.session.one((r) => r.get(k.config)),
      opts.session.one((r) => r.get(k.secrets)),
    ]);
    const config = parseTenantConfig(parseJson(rawConfig), 'load');
    const stored = StoredSecretsSchema.safeParse(parseJson(rawSecrets));
    if (!config.ok || !stored.success) continue;
    let apiKey: string;
    try {
      apiKey = (await openTenantSecrets(stored.data, opts.keys)).manychatApiKey;
    } catch {
      continue; // sealed under keys this stack does not have: not a local tenant
    }
    const pageId = apiKey.split(':')[0] ?? '';
    if (!/^\d+$/.test(pageId)) continue;
    const before = opts.sandbox.page(pageId);
    const page = mergedPage(before, pageId, apiKey, config.config);
    try {
      opts.sandbox.addPage(page);
      const added =
        page.flows!.length -
        (before?.flows?.length ?? 0) +
        (page.tags!.length - (before?.tags?.length ?? 0)) +
        (page.customFields!.length - (before?.customFields?.length ?? 0));
      // Only what changed: a shared Redis may hold many tenants whose pages are already there.
      if (!before || added > 0 || before.apiKey !== apiKey)
        opts.log(
          `[sandbox] tenant "${tenantId}" → ManyChat page ${pageId}: ${page.flows!.length} flows, ${page.tags!.length} tags, ${page.customFields!.length} fields`,
        );
    } catch (err) {
      opts.log(
        `[sandbox] tenant "${tenantId}" could not be mirrored: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}

/** The page with every flow, tag and field the config names added (existing ids kept; nothing removed). */
function mergedPage(
  existing: SandboxPage | undefined,
  pageId: string,
  apiKey: string,
  config: {
    flows: { ns: string }[];
    tags: { name: string }[];
    fields: { name: string; type: 'text' | 'number' | 'boolean' | 'date' }[];
  },
): SandboxPage {
  const tags = [...(existing?.tags ?? [])];
  const customFields = [...(existing?.customFields ?? [])];
  const nextId = () => Math.max(0, ...tags.map((t) => t.id), ...customFields.map((f) => f.id)) + 1;
  for (const tag of config.tags)
    if (!tags.some((t) => t.name === tag.name)) tags.push({ id: nextId(), name: tag.name });
  for (const field of config.fields)
    if (!customFields.some((f) => f.name.toLowerCase() === field.name.toLowerCase()))
      customFields.push({ id: nextId(), name: field.name, type: field.type });
  const flows = [...new Set([...(existing?.flows ?? []), ...config.flows.map((f) => f.ns)])];
  return { pageId, apiKey, tags, customFields, flows };
}
