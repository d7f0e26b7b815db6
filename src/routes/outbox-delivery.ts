import { Hono, type Context } from 'hono';
import type { AppContext } from '../http/app-context.js';
import { jsonError, parseJsonText } from '../http/errors.js';
import { verifyQStashRequest } from '../http/qstash-signature.js';
import { assertSafeId } from '../../core/storage/keys.js';
import { loadTenant } from '../tenants/tenant-store.js';
import { deliverOutboxEntry, type DeliveryResult } from '../../outbox/deliver-entry.js';
import { createManyChatClient, DEFAULT_MANYCHAT_TIMEOUT_MS } from '../../outbox/manychat-client.js';
import { DeliveryMessageSchema } from '../../core/outbox-entry.js';
import { DELIVERY_PATH } from '../../outbox/publisher.js';

export const DELIVERY_BODY_LIMIT = 64 * 1024;

/**
 * QStash answers: any 2xx is done; other statuses are retried (honouring Retry-After); 489 with
 * `Upstash-NonRetryable-Error: true` fails at once into QStash's DLQ (protocols/upstash-qstash.md B4).
 */
function nonRetryable(c: Context<AppContext>, error: string, details?: string[]) {
  c.header('Upstash-NonRetryable-Error', 'true');
  // 489 is not in Hono's status type; it is QStash's documented "do not retry" status.
  return c.json({ error, ...(details?.length ? { details } : {}) }, 489 as 400);
}

function answer(c: Context<AppContext>, tenantId: string, turnId: string, result: DeliveryResult) {
  const body = { tenantId, turnId, outcome: result.outcome, entryState: result.entryState ?? null, actions: result.actions };
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
  const app = new Hono<AppContext>();
  app.post('/deliver', async (c) => {
    // Any failure (bad key, expired, wrong URL, body altered, malformed token) is the same 401.
    const verified = await verifyQStashRequest(c, DELIVERY_PATH, DELIVERY_BODY_LIMIT);
    if (!verified.ok) return jsonError(c, verified.status, verified.error);
    const services = c.get('services');

    const json = parseJsonText(verified.body);
    if (!json.ok) return jsonError(c, 400, json.error);
    const message = DeliveryMessageSchema.safeParse(json.value);
    if (!message.success) return jsonError(c, 400, 'invalid delivery body', message.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
    const { tenantId, turnId } = message.data;
    try {
      assertSafeId('tenant id', tenantId);
      assertSafeId('turn id', turnId);
    } catch (err) {
      return nonRetryable(c, err instanceof Error ? err.message : 'invalid id');
    }

    const session = services.redis();
    const tenant = await loadTenant(session, tenantId);
    if (!tenant.found) return nonRetryable(c, `unknown tenant "${tenantId}"`);
    // A broken config may be fixed by the tenant: retryable, unlike an unknown tenant.
    if ('broken' in tenant) return jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, tenant.broken);

    const manychat = createManyChatClient({
      baseUrl: services.env.MANYCHAT_API_URL,
      apiKey: tenant.secrets.manychatApiKey,
      fetch: services.fetch,
      timeoutMs: DEFAULT_MANYCHAT_TIMEOUT_MS,
    });
    const result = await deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat } });
    // Ids and outcome only: action details can quote contact data.
    console.log(`outbox ${tenantId}/${turnId}: ${result.outcome} (${result.actions.map((a) => `${a.id}=${a.state}`).join(', ')})`);
    return answer(c, tenantId, turnId, result);
  });
  return app;
}
