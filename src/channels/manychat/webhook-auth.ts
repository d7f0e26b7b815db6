import type { Context, MiddlewareHandler } from 'hono';
import { verifyCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import type { AppContext } from '../../http/app-context.js';
import { jsonError, parseJsonText } from '../../http/errors.js';
import {
  logRefusedLookup,
  lookupTenantFromPath,
  secretMatches,
  type TenantLookup,
} from '../../http/middleware/tenant.js';
import { parseManyChatWebhook, type ManyChatWebhook } from './inbound-schema.js';
import { keepForUnknownTenant } from './keep-through-outage.js';
import { WEBHOOK_SECRET_HEADER, type ManyChatContext } from './manychat-context.js';
import { sessionSecrets } from '../../env.js';

export { WEBHOOK_SECRET_HEADER, type ManyChatAuth, type ManyChatContext } from './manychat-context.js';

/**
 * ManyChat's webhook authentication, with the tenant's loading. A message needs the tenant's
 * secret header (compared in constant time against its stored digest). A button press comes back
 * without the header, so only the HMAC on the callback payload we issued authorises it — with or
 * without the header. Before authentication nothing is told: an unknown tenant answers exactly
 * as a wrong secret does, a broken stored config is shown (503) only to a caller with the right
 * secret, and without the header every problem with the body is the same 401.
 */
function brokenConfig(c: Context, lookup: { tenantId: string; problems: string[] }) {
  return jsonError(c, 503, `tenant "${lookup.tenantId}" has an invalid stored configuration`, lookup.problems);
}

export function authenticateManyChatWebhook(): MiddlewareHandler<ManyChatContext> {
  return async (c, next) => {
    // The isolate's cached tenant when it has one (no round trip); its revision is checked with the claim.
    const found = await lookupTenantFromPath(c as unknown as Context<AppContext>, { fromCache: true });
    // Redis is down and this isolate never read the tenant: keep the message, authenticated when it runs.
    if (found.kind === 'storage-down' && !found.cached) return keepForUnknownTenant(c, found.tenantId);
    // Redis is down but the isolate knows the tenant: authenticate as usual; the route keeps the message.
    const lookup: TenantLookup = found.kind === 'storage-down' ? { kind: 'found', tenant: found.cached! } : found;
    const secrets = lookup.kind === 'found' ? lookup.tenant.secrets : lookup.kind === 'broken' ? lookup.secrets : null;
    const provided = c.req.header(WEBHOOK_SECRET_HEADER);
    const wrong = () => jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for this tenant`);
    const missing = () => jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`);
    if (
      provided !== undefined &&
      !(await secretMatches(c as unknown as Context<AppContext>, provided, secrets?.webhookSecret))
    ) {
      if (lookup.kind !== 'found') logRefusedLookup(lookup, 'ManyChat webhook');
      return wrong();
    }
    // Only a caller holding this tenant's secret learns that its configuration needs fixing.
    if (lookup.kind === 'broken' && provided !== undefined) return brokenConfig(c, lookup);
    // From here: no header (the body must be a button we signed), or the right one.
    const tenantId = lookup.kind === 'found' ? lookup.tenant.config.tenantId : lookup.tenantId;
    const json = parseJsonText(await c.req.text());
    if (!json.ok) return provided === undefined ? missing() : jsonError(c, 400, json.error);
    const webhook = parseManyChatWebhook(json.value);
    if (!webhook.ok)
      return provided === undefined ? missing() : jsonError(c, 400, 'invalid ManyChat webhook body', webhook.problems);
    const { callback, sig, contact } = webhook.value;
    if (callback) {
      const claim: CallbackClaim =
        callback.kind === 'confirm'
          ? {
              kind: 'confirm',
              tenantId,
              contactId: contact.id,
              pendingId: callback.pendingId,
              answer: callback.answer,
              nonce: callback.nonce,
            }
          : { kind: 'suggest', tenantId, contactId: contact.id, text: callback.text, nonce: callback.nonce };
      if (!sig || !(await verifyCallback(sessionSecrets(c.get('services').env), claim, sig)))
        return jsonError(c, 401, 'callback signature is missing or does not match');
      c.set('auth', { via: 'callback', claim });
    } else {
      if (provided === undefined) return missing();
      c.set('auth', { via: 'secret' });
    }
    if (lookup.kind !== 'found') {
      // A button we signed for this tenant (we never sign for an unknown one).
      logRefusedLookup(lookup, 'ManyChat webhook');
      return lookup.kind === 'broken' ? brokenConfig(c, lookup) : wrong();
    }
    c.set('tenant', lookup.tenant);
    c.set('webhook', webhook.value);
    c.set('storageDown', found.kind === 'storage-down');
    c.set(
      'tenantRev',
      found.kind === 'found' ? (found.rev ?? null) : found.kind === 'storage-down' ? (found.rev ?? null) : null,
    );
    c.set('tenantFromCache', found.kind === 'found' && found.fromCache === true);
    await next();
  };
}
