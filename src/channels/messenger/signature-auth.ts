import type { Context, MiddlewareHandler } from 'hono';
import type { TenantSecrets } from '../../../core/tenant/tenant-secrets.js';
import type { AppContext, AppVariables, Bindings, LoadedTenant } from '../../http/app-context.js';
import { jsonError } from '../../http/errors.js';
import {
  logRefusedLookup,
  lookupTenantFromPath,
  storageUnavailable,
  type TenantLookup,
} from '../../http/middleware/tenant.js';
import { HUB_SIGNATURE_HEADER, parseHubSignature, verifyHubSignature } from './hub-signature.js';

/** Stands in for a secret the tenant does not have, so a refusal costs the same work. */
export const ABSENT_SECRET = 'no-secret-for-this-tenant';

export type MessengerContext = {
  Bindings: Bindings;
  /** `rawBody`: the exact bytes the signature covered; `storageDown`: the tenant is the isolate's copy. */
  Variables: AppVariables & { tenant: LoadedTenant; rawBody: Uint8Array; storageDown: boolean };
};

/** The secrets a lookup found, whatever else is wrong with the tenant (for a same-cost refusal). */
export function secretsOf(lookup: TenantLookup): TenantSecrets | null {
  if (lookup.kind === 'found') return lookup.tenant.secrets;
  if (lookup.kind === 'broken') return lookup.secrets;
  if (lookup.kind === 'storage-down') return lookup.cached?.secrets ?? null;
  return null;
}

/**
 * The Messenger webhook's authentication, with the tenant's loading (the Messenger counterpart of
 * the ManyChat webhook's middleware): `X-Hub-Signature-256` verified over the raw bytes with the
 * tenant's app secret before anything is parsed. An unknown tenant, a tenant without an app
 * secret and a wrong signature are the same 401; a broken stored config is told (503) only to a
 * caller whose signature verified. The tenant is read fresh (one round trip; Meta is answered at
 * once anyway), so a rotated app secret or a suspension counts from the next request; the
 * isolate's copy serves only while Redis is down.
 */
export function authenticateMessengerWebhook(): MiddlewareHandler<MessengerContext> {
  return async (c, next) => {
    const lookup = await lookupTenantFromPath(c as unknown as Context<AppContext>);
    if (lookup.kind === 'storage-down' && !lookup.cached) return storageUnavailable(c);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const signature = parseHubSignature(c.req.header(HUB_SIGNATURE_HEADER));
    if (!signature.ok) {
      const legacy =
        c.req.header('x-hub-signature') !== undefined ? '; the legacy X-Hub-Signature (sha1) is not accepted' : '';
      return jsonError(c, 401, `${signature.problem}${legacy}`);
    }
    const appSecret = secretsOf(lookup)?.messengerAppSecret;
    const verified = await verifyHubSignature(raw, signature.mac, appSecret ?? ABSENT_SECRET);
    const refused = () => jsonError(c, 401, `${HUB_SIGNATURE_HEADER} does not match this tenant's app secret`);
    if (!verified || !appSecret) {
      if (lookup.kind !== 'found') logRefusedLookup(lookup, 'Messenger webhook');
      return refused();
    }
    // Authenticated from here: the caller holds the app secret.
    if (lookup.kind === 'broken')
      return jsonError(c, 503, `tenant "${lookup.tenantId}" has an invalid stored configuration`, lookup.problems);
    const tenant = lookup.kind === 'found' ? lookup.tenant : lookup.kind === 'storage-down' ? lookup.cached : null;
    if (!tenant) return refused();
    c.set('tenant', tenant);
    c.set('rawBody', raw);
    c.set('storageDown', lookup.kind === 'storage-down');
    await next();
  };
}
