import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { timingSafeEqual } from '../../core/security/constant-time.js';
import { parseJson } from '../../core/storage/redis-session.js';
import type { AppContext, AppVariables, Bindings, LoadedTenant } from '../http/app-context.js';
import { jsonError } from '../http/errors.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { lookupTenantFromPath, storageUnavailable } from '../http/middleware/tenant.js';
import { appendAudit } from '../tenants/audit-log.js';
import { deleteContactData } from '../tenants/contact-deletion.js';
import { readDeletionStatus, writeDeletionStatus } from '../tenants/deletion-status.js';

/**
 * Meta's data-deletion callback for a Messenger tenant: `POST /v1/messenger/:tenant/data-deletion`
 * with a form field `signed_request` = `<base64url HMAC-SHA256 signature>.<base64url JSON payload>`,
 * signed with the app secret. The data kept under the signed `user_id` is deleted at once (Meta
 * documents that id as app-scoped, and Messenger contacts are kept under page-scoped ids, so a
 * request may match nothing: the status then says so; mapping one id to the other through Meta's
 * ID-matching API is not built); the answer is `{ url, confirmation_code }`, and the URL reports the
 * deletion's status (a code and a time, nothing personal) for 90 days.
 */
const PayloadSchema = z
  .object({ algorithm: z.literal('HMAC-SHA256'), user_id: z.string().regex(/^[0-9A-Za-z_.:@-]{1,100}$/) })
  .loose();

function base64UrlDecode(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const s = text.replaceAll('-', '+').replaceAll('_', '/');
  try {
    return Uint8Array.from(atob(s + '='.repeat((4 - (s.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The verified payload of a signed_request, or null (any problem is the same null). */
export async function verifySignedRequest(
  signedRequest: string,
  appSecret: string,
): Promise<z.infer<typeof PayloadSchema> | null> {
  const [sigPart, payloadPart, extra] = signedRequest.split('.');
  if (!sigPart || !payloadPart || extra !== undefined) return null;
  const sig = base64UrlDecode(sigPart);
  const payload = base64UrlDecode(payloadPart);
  if (!sig || !payload) return null;
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(appSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(payloadPart)));
  if (!timingSafeEqual(expected, sig)) return null;
  const parsed = PayloadSchema.safeParse(parseJson(new TextDecoder().decode(payload)));
  return parsed.success ? parsed.data : null;
}

function statusUrl(c: Context<AppContext>, tenantId: string, code: string): string {
  return `${c.get('services').env.PUBLIC_URL.replace(/\/$/, '')}/v1/messenger/${tenantId}/data-deletion/${code}`;
}

type DeletionContext = {
  Bindings: Bindings;
  Variables: AppVariables & { tenant: LoadedTenant; deletionRequest: z.infer<typeof PayloadSchema> };
};

/**
 * The callback's authentication, with the tenant's loading: the form's `signed_request` verified
 * with the tenant's Messenger app secret. An unknown tenant, one without an app secret and a bad
 * signature are the same 401.
 */
function authenticateSignedRequest(): MiddlewareHandler<DeletionContext> {
  return async (c, next) => {
    const lookup = await lookupTenantFromPath(c as unknown as Context<AppContext>);
    if (lookup.kind === 'storage-down') return storageUnavailable(c);
    const form = new URLSearchParams(await c.req.text());
    const signedRequest = form.get('signed_request') ?? '';
    const appSecret = lookup.kind === 'found' ? lookup.tenant.secrets.messengerAppSecret : undefined;
    const payload = appSecret ? await verifySignedRequest(signedRequest, appSecret) : null;
    if (!payload || lookup.kind !== 'found') return jsonError(c, 401, 'signed_request is missing or does not verify');
    c.set('tenant', lookup.tenant);
    c.set('deletionRequest', payload);
    await next();
  };
}

export function dataDeletionRoutes() {
  const app = new Hono<AppContext>();
  app.post('/:tenant/data-deletion', limitBody(16 * 1024), authenticateSignedRequest(), async (c) => {
    const payload = c.get('deletionRequest');
    const tenantId = c.get('tenant').config.tenantId;
    const deleted = await deleteContactData(c.get('session'), tenantId, payload.user_id);
    const code = `del_${crypto.randomUUID().replace(/-/g, '')}`;
    // Meta signs an app-scoped user id; Messenger contacts are kept under page-scoped ids, so a
    // request can match nothing. The status says so rather than implying something was erased.
    const found = deleted.keys > 0 || deleted.turns > 0 || deleted.rows > 0;
    const detail = found
      ? `Deleted: ${deleted.turns} conversation turns and everything stored with them.`
      : 'No data was stored under this id. Conversations with a page are kept under the id the page knows you by: to have one deleted, ask the business through the page.';
    const status = {
      confirmation_code: code,
      status: 'complete',
      found,
      detail,
      completedAt: new Date().toISOString(),
    };
    await writeDeletionStatus(c.get('session'), tenantId, code, status);
    await appendAudit(c.get('session'), tenantId, {
      actor: 'meta',
      action: 'contact.deleted',
      detail: `data-deletion request ${code}: ${deleted.turns} turns, ${deleted.rows} pending rows, ${deleted.keys} keys`,
    });
    return c.json({ url: statusUrl(c as unknown as Context<AppContext>, tenantId, code), confirmation_code: code });
  });

  app.get('/:tenant/data-deletion/:code', async (c) => {
    const code = c.req.param('code');
    const lookup = await lookupTenantFromPath(c);
    if (lookup.kind !== 'found' || !/^del_[a-f0-9]{32}$/.test(code))
      return jsonError(c, 404, 'no such deletion request');
    const stored = await readDeletionStatus(c.get('session'), lookup.tenant.config.tenantId, code);
    return stored ? c.json(stored.status) : jsonError(c, 404, 'no such deletion request');
  });
  return app;
}
