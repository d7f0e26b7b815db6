import type { MiddlewareHandler } from 'hono';
import { secretsEqual } from '../../../core/security/constant-time.js';
import { sha256Hex } from '../../../core/security/digest.js';
import { verifyCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import type { AppVariables, LoadedTenant } from '../../http/app-context.js';
import { jsonError, parseJsonText } from '../../http/errors.js';
import { parseManyChatWebhook, type ManyChatWebhook } from './inbound-schema.js';

export const WEBHOOK_SECRET_HEADER = 'x-staged-agent-secret';

/** How a ManyChat request proved it is the tenant's: the secret header, or a button we signed. */
export type ManyChatAuth = { via: 'secret' } | { via: 'callback'; claim: CallbackClaim };

export type ManyChatContext = {
  Bindings: Record<string, unknown>;
  Variables: AppVariables & { tenant: LoadedTenant; webhook: ManyChatWebhook; auth: ManyChatAuth };
};

/**
 * ManyChat's webhook authentication. A message needs the tenant's secret header (compared in
 * constant time against its stored digest). A button press comes back without the header, so
 * only the HMAC on the callback payload we issued authorises it — with or without the header.
 * Without the header, a caller learns nothing about the body: every problem is the same 401.
 */
export function authenticateManyChatWebhook(): MiddlewareHandler<ManyChatContext> {
  return async (c, next) => {
    const { config, secrets } = c.get('tenant');
    const tenantId = config.tenantId;
    const provided = c.req.header(WEBHOOK_SECRET_HEADER);
    if (provided !== undefined && !(await secretsEqual(await sha256Hex(provided), secrets.webhookSecretSha256))) {
      return jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for tenant "${tenantId}"`);
    }
    const missing = () => jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`);
    const json = parseJsonText(await c.req.text());
    if (!json.ok) return provided === undefined ? missing() : jsonError(c, 400, json.error);
    const webhook = parseManyChatWebhook(json.value);
    if (!webhook.ok) return provided === undefined ? missing() : jsonError(c, 400, 'invalid ManyChat webhook body', webhook.problems);
    const { callback, sig, contact } = webhook.value;
    if (callback) {
      const claim: CallbackClaim =
        callback.kind === 'confirm'
          ? { kind: 'confirm', tenantId, contactId: contact.id, pendingId: callback.pendingId, answer: callback.answer, nonce: callback.nonce }
          : { kind: 'suggest', tenantId, contactId: contact.id, text: callback.text, nonce: callback.nonce };
      if (!sig || !(await verifyCallback(c.get('services').env.SESSION_SECRET, claim, sig))) return jsonError(c, 401, 'callback signature is missing or does not match');
      c.set('auth', { via: 'callback', claim });
    } else {
      if (provided === undefined) return missing();
      c.set('auth', { via: 'secret' });
    }
    c.set('webhook', webhook.value);
    await next();
  };
}
