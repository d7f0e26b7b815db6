import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { secretsEqual } from '../../../core/security/constant-time.js';
import { messengerAppTenantsKey, messengerPageOwnerKey } from '../../../core/storage/keys.js';
import { isTenantId } from '../../../core/tenant/tenant-id.js';
import type { AppContext, LoadedTenant } from '../../http/app-context.js';
import { jsonError, zodProblems } from '../../http/errors.js';
import { limitBody } from '../../http/middleware/body-limit.js';
import { storageUnavailable } from '../../http/middleware/tenant.js';
import { isStorageFailure } from '../../http/storage-failure.js';
import { waitUntilOf } from '../../http/wait-until.js';
import { loadTenant } from '../../tenants/tenant-store.js';
import { admitTenantEvents, type EventCounts } from './admit-events.js';
import type { MessengerWebhook } from './events-schema.js';
import { HUB_SIGNATURE_HEADER, parseHubSignature, verifyHubSignature } from './hub-signature.js';
import { MESSENGER_BODY_LIMIT, readWebhook } from './route.js';
import { ABSENT_SECRET } from './signature-auth.js';

const AppIdSchema = z.string().regex(/^\d{1,30}$/, 'a Meta app id is a digit string');
const VerifyQuerySchema = z.object({
  'hub.mode': z.string().max(40),
  'hub.verify_token': z.string().min(1).max(500),
  'hub.challenge': z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'letters, digits, _ and - only (Meta sends an integer)'),
});
/** Tenants checked for a subscription's verify token: an agency's pages behind one app. */
const MAX_APP_TENANTS = 200;

/**
 * One callback URL per Meta app (`/v1/messenger/app/:appId`), for an agency that subscribes one app
 * to many pages. Each entry goes to the tenant that lists its page (`messenger.pages`), and only if
 * that tenant names this app (`messenger.appId`) and its app secret verifies `X-Hub-Signature-256`
 * over the raw bytes: the app secret and the page id together. An entry for a page no such tenant
 * owns is ignored and logged; a body no owning tenant's secret verifies is 401. Redis not answering
 * is 503 (the page index is not cached): Meta retries, nothing is acknowledged and lost.
 *
 * The body is parsed before the signature is checked — the page ids say whose secret to use; the
 * parse is bounded (size limit, zod) and nothing is done with it before a secret verifies.
 */
export function messengerAppRoutes() {
  const app = new Hono<AppContext>();

  app.get('/app/:appId', async (c) => {
    const appId = AppIdSchema.safeParse(c.req.param('appId'));
    const query = VerifyQuerySchema.safeParse(c.req.query());
    if (!appId.success || !query.success)
      return jsonError(c, 400, 'invalid subscription check', [
        ...(appId.success ? [] : zodProblems(appId.error)),
        ...(query.success ? [] : zodProblems(query.error)),
      ]);
    let tenants: LoadedTenant[];
    try {
      const ids = ((await c.get('session').one((r) => r.smembers(messengerAppTenantsKey(appId.data)))) as string[])
        .filter(isTenantId)
        .slice(0, MAX_APP_TENANTS);
      tenants = await loadTenants(c, ids);
    } catch (err) {
      if (!isStorageFailure(err)) throw err;
      return storageUnavailable(c);
    }
    // Every candidate compared (constant time each), so the answer's timing does not say which matched.
    let matches = false;
    for (const t of tenants) {
      const token = t.config.messenger.appId === appId.data ? t.secrets.messengerVerifyToken : undefined;
      if ((await secretsEqual(query.data['hub.verify_token'], token ?? ABSENT_SECRET)) && token) matches = true;
    }
    if (!matches || query.data['hub.mode'] !== 'subscribe')
      return jsonError(
        c,
        403,
        'subscription check refused: hub.mode must be subscribe and hub.verify_token the verify token of a tenant on this app',
      );
    return c.text(query.data['hub.challenge'], 200);
  });

  app.post('/app/:appId', limitBody(MESSENGER_BODY_LIMIT), async (c) => {
    const appId = AppIdSchema.safeParse(c.req.param('appId'));
    if (!appId.success) return jsonError(c, 400, 'invalid app id', zodProblems(appId.error));
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const signature = parseHubSignature(c.req.header(HUB_SIGNATURE_HEADER));
    if (!signature.ok) return jsonError(c, 401, signature.problem);
    const webhook = readWebhook(c, raw);
    if (!webhook.ok) return webhook.response;

    let owners: Map<string, LoadedTenant>;
    try {
      owners = await pageOwners(c, webhook.value);
    } catch (err) {
      if (!isStorageFailure(err)) throw err;
      return storageUnavailable(c);
    }
    // The tenants whose app secret signed these bytes and who name this app.
    const verified = new Map<string, LoadedTenant>();
    for (const tenant of new Set(owners.values())) {
      const secret = tenant.config.messenger.appId === appId.data ? tenant.secrets.messengerAppSecret : undefined;
      if ((await verifyHubSignature(raw, signature.mac, secret ?? ABSENT_SECRET)) && secret)
        verified.set(tenant.config.tenantId, tenant);
    }
    if (!verified.size) {
      console.warn(
        `Messenger app ${appId.data}: no tenant owning these ${webhook.value.entry.length} entr(y/ies) verifies the signature (answered 401)`,
      );
      return jsonError(
        c,
        401,
        `${HUB_SIGNATURE_HEADER} does not match the app secret of a tenant that owns these pages on this app`,
      );
    }
    const foreign = webhook.value.entry.filter((e) => !verified.has(owners.get(e.id)?.config.tenantId ?? ''));
    if (foreign.length)
      console.warn(
        `Messenger app ${appId.data}: ${foreign.length} entr(y/ies) for pages no tenant on this app owns ignored, e.g. page ${foreign[0]!.id}`,
      );

    const received: Record<string, EventCounts> = {};
    for (const tenant of verified.values()) {
      const pageIds = new Set(tenant.config.messenger.pages.map((p) => p.id));
      const share: MessengerWebhook = { ...webhook.value, entry: webhook.value.entry.filter((e) => pageIds.has(e.id)) };
      const admitted = await admitTenantEvents(c.get('services'), tenant, share, false);
      // Meta retries the whole batch: shares already admitted join their first turns on the retry.
      if (admitted.kind === 'unavailable') return storageUnavailable(c);
      if (admitted.background) waitUntilOf(c)(admitted.background);
      received[tenant.config.tenantId] = admitted.counts;
    }
    return c.json({ received, ignored: foreign.length });
  });
  return app;
}

/** The tenant that lists each entry's page (one round trip for the index, one per owning tenant). */
async function pageOwners(c: Context<AppContext>, webhook: MessengerWebhook): Promise<Map<string, LoadedTenant>> {
  const pageIds = [...new Set(webhook.entry.map((e) => e.id))];
  const ownerIds = (await c
    .get('session')
    .pipeline((p) => pageIds.forEach((id) => p.get(messengerPageOwnerKey(id))))) as unknown[];
  const byTenant = new Map<string, string[]>();
  pageIds.forEach((pageId, i) => {
    const owner = ownerIds[i];
    if (typeof owner === 'string' && isTenantId(owner)) byTenant.set(owner, [...(byTenant.get(owner) ?? []), pageId]);
  });
  const tenants = await loadTenants(c, [...byTenant.keys()]);
  const owners = new Map<string, LoadedTenant>();
  for (const tenant of tenants) {
    // The index is a hint; the tenant's own config must still list the page.
    for (const pageId of byTenant.get(tenant.config.tenantId) ?? [])
      if (tenant.config.messenger.pages.some((p) => p.id === pageId)) owners.set(pageId, tenant);
  }
  return owners;
}

async function loadTenants(c: Context<AppContext>, ids: readonly string[]): Promise<LoadedTenant[]> {
  const keys = await c.get('services').secretKeys();
  const loads = await Promise.all(ids.map((id) => loadTenant(c.get('session'), id, keys)));
  return loads.flatMap((l) =>
    l.found && !('broken' in l) ? [{ config: l.config, secrets: l.secrets, meta: l.meta }] : [],
  );
}
