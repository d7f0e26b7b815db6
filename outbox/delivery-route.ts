import { Receiver } from '@upstash/qstash';
import { Hono, type Context } from 'hono';
import type { AppContext } from '../src/http/app-context.js';
import { jsonError, parseJsonText, readBodyLimited } from '../src/http/errors.js';
import { assertSafeId } from '../src/storage/keys.js';
import { loadTenant } from '../src/tenants/tenant-store.js';
import { deliverOutboxEntry, type DeliveryResult } from './deliver-entry.js';
import { createManyChatClient, DEFAULT_MANYCHAT_TIMEOUT_MS } from './manychat-client.js';
import { DeliveryMessageSchema } from './outbox-entry.js';
import { DELIVERY_PATH } from './publisher.js';

export const DELIVERY_BODY_LIMIT = 64 * 1024;
/** Seconds of clock skew tolerated on the signature's nbf/exp (QStash's clock vs the edge's). */
export const SIGNATURE_CLOCK_TOLERANCE_S = 5;

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
      // Another delivery of this entry holds the lease; try again shortly and find it done.
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
    const body = await readBodyLimited(c, DELIVERY_BODY_LIMIT);
    if (!body.ok) return jsonError(c, body.status, body.error);

    const services = c.get('services');
    const { env } = services;
    const signature = c.req.header('Upstash-Signature');
    if (!signature) return jsonError(c, 401, 'missing Upstash-Signature header');
    const receiver = new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY });
    try {
      // The URL QStash signed is the one the publisher asked for, not whatever Host this request has.
      await receiver.verify({ signature, body: body.text, url: `${env.PUBLIC_URL.replace(/\/$/, '')}${DELIVERY_PATH}`, clockTolerance: SIGNATURE_CLOCK_TOLERANCE_S });
    } catch {
      // Any failure (bad key, expired, wrong URL, body altered, malformed token) is the same 401;
      // the reason is not echoed to an unauthenticated caller.
      return jsonError(c, 401, 'invalid Upstash-Signature');
    }

    const json = parseJsonText(body.text);
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
      baseUrl: env.MANYCHAT_API_URL,
      apiKey: tenant.secrets.manychatApiKey,
      fetch: services.fetch,
      timeoutMs: DEFAULT_MANYCHAT_TIMEOUT_MS,
    });
    const result = await deliverOutboxEntry({ session, tenantId, turnId, manychat });
    // Ids and outcome only: action details can quote contact data.
    console.log(`outbox ${tenantId}/${turnId}: ${result.outcome} (${result.actions.map((a) => `${a.id}=${a.state}`).join(', ')})`);
    return answer(c, tenantId, turnId, result);
  });
  return app;
}
