import { Hono, type Context } from 'hono';
import type { SignedContext } from '../http/app-context.js';
import { jsonError, parseJsonBody } from '../http/errors.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { requireQStashSignature } from '../http/middleware/qstash-signature.js';
import { loadTenant } from '../tenants/tenant-store.js';
import type { DeliveryResult } from '../../outbox/deliver-entry.js';
import { deliverTenantEntry } from '../tenants/deliver-tenant-entry.js';
import { DeliveryMessageSchema } from '../../core/outbox-entry.js';
import { DELIVERY_PATH } from '../../outbox/publisher.js';

export const DELIVERY_BODY_LIMIT = 64 * 1024;

/**
 * QStash answers: any 2xx is done; other statuses are retried (honouring Retry-After); 489 with
 * `Upstash-NonRetryable-Error: true` fails at once into QStash's DLQ (docs/protocols.md, QStash).
 */
function nonRetryable(c: Context<SignedContext>, error: string, details?: string[]) {
  c.header('Upstash-NonRetryable-Error', 'true');
  // 489 is not in Hono's status type; it is QStash's documented "do not retry" status.
  return c.json({ error, ...(details?.length ? { details } : {}) }, 489 as 400);
}

function answer(c: Context<SignedContext>, tenantId: string, turnId: string, result: DeliveryResult) {
  const body = {
    tenantId,
    turnId,
    outcome: result.outcome,
    entryState: result.entryState ?? null,
    actions: result.actions,
  };
  switch (result.outcome) {
    case 'done':
      return c.json(body, 200);
    case 'retry':
      // With no Retry-After from ManyChat, QStash's own exponential backoff decides.
      if (result.retryAfterSeconds !== undefined) c.header('Retry-After', String(result.retryAfterSeconds));
      return c.json(body, 503);
    case 'busy':
      // Another delivery of this entry holds the lease: come back when it has run out (≥ 1 s)
      // and find the work done, or take over from a holder that died.
      c.header('Retry-After', String(result.retryAfterSeconds ?? 1));
      return c.json(body, 409);
    case 'not_found':
      return nonRetryable(c, result.problem ?? `no outbox entry for turn "${turnId}"`);
  }
}

/** `POST /v1/outbox/deliver` — QStash delivers `{tenantId, turnId}` here; only a valid signature gets past. */
export function deliveryRoutes() {
  const app = new Hono<SignedContext>();
  app.post('/deliver', limitBody(DELIVERY_BODY_LIMIT), requireQStashSignature(DELIVERY_PATH), async (c) => {
    const message = parseJsonBody(c, c.get('signedBody'), DeliveryMessageSchema, 'delivery body');
    if (!message.ok) return message.response;
    const { tenantId, turnId } = message.value;
    const session = c.get('session');
    const tenant = await loadTenant(session, tenantId, await c.get('services').secretKeys());
    if (!tenant.found) return nonRetryable(c, `unknown tenant "${tenantId}"`);
    // A broken config may be fixed by the tenant: retryable, unlike an unknown tenant.
    if ('broken' in tenant)
      return jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, tenant.broken);
    const result = await deliverTenantEntry(c.get('services'), session, tenant, turnId);
    // Ids and outcome only: action details can quote contact data.
    console.log(
      `outbox ${tenantId}/${turnId}: ${result.outcome} (${result.actions.map((a) => `${a.id}=${a.state}`).join(', ')})`,
    );
    return answer(c, tenantId, turnId, result);
  });
  return app;
}
