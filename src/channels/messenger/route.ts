import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { secretsEqual } from '../../../core/security/constant-time.js';
import type { AppContext, LoadedTenant } from '../../http/app-context.js';
import { jsonError, parseJsonText, zodProblems } from '../../http/errors.js';
import { limitBody } from '../../http/middleware/body-limit.js';
import { logRefusedLookup, lookupTenantFromPath, storageUnavailable } from '../../http/middleware/tenant.js';
import { waitUntilOf } from '../../http/wait-until.js';
import { MessengerWebhookSchema } from './events-schema.js';
import { processMessengerEvents } from './process-events.js';
import { replySuspended } from './system-reply.js';
import { ABSENT_SECRET, authenticateMessengerWebhook, secretsOf } from './signature-auth.js';
import { readEvents } from './read-events.js';

/** Meta batches up to 1000 entries; a quarter of a megabyte is plenty for text and attachment URLs. */
export const MESSENGER_BODY_LIMIT = 256 * 1024;

const VerifyQuerySchema = z.object({
  'hub.mode': z.string().max(40),
  'hub.verify_token': z.string().min(1).max(500),
  // Meta sends an integer; anything else is refused rather than echoed.
  'hub.challenge': z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'letters, digits, _ and - only (Meta sends an integer)'),
});

/**
 * The Messenger Platform webhook of one tenant (docs/protocols.md, Messenger):
 * - `GET /v1/messenger/:tenant` — the subscription check: `hub.mode=subscribe` and the tenant's
 *   verify token (constant time) echo `hub.challenge`; anything else is 403.
 * - `POST /v1/messenger/:tenant` — `X-Hub-Signature-256` verified over the raw bytes with the
 *   tenant's app secret before anything is parsed (401 otherwise), then every entry and messaging
 *   item is read and the webhook answers 200 at once; the turns run after the answer
 *   (waitUntil) and every reply goes through the outbox.
 */
export function messengerRoutes() {
  const app = new Hono<AppContext>();

  app.get('/:tenant', async (c) => {
    const query = VerifyQuerySchema.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, 'invalid subscription check', zodProblems(query.error));
    const lookup = await lookupTenantFromPath(c);
    if (lookup.kind === 'storage-down' && !lookup.cached) return storageUnavailable(c);
    const stored = secretsOf(lookup)?.messengerVerifyToken;
    const tokenMatches = await secretsEqual(query.data['hub.verify_token'], stored ?? ABSENT_SECRET);
    if (!stored || !tokenMatches || query.data['hub.mode'] !== 'subscribe' || lookup.kind === 'unknown') {
      if (lookup.kind !== 'found') logRefusedLookup(lookup, 'Messenger subscription check');
      return jsonError(c, 403, 'subscription check refused: hub.mode must be subscribe and hub.verify_token this tenant\'s verify token');
    }
    return c.text(query.data['hub.challenge'], 200);
  });

  app.post('/:tenant', limitBody(MESSENGER_BODY_LIMIT), authenticateMessengerWebhook(), async (c) => {
    const tenant = c.get('tenant');
    const raw = c.get('rawBody');
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
    } catch {
      return jsonError(c, 400, 'body is not valid UTF-8');
    }
    const json = parseJsonText(text);
    if (!json.ok) return jsonError(c, 400, json.error);
    const webhook = MessengerWebhookSchema.safeParse(json.value);
    if (!webhook.success) return jsonError(c, 400, 'invalid Messenger webhook body', zodProblems(webhook.error));

    const events = readEvents(webhook.data, tenant.config.tenantId, new Date());
    const unreadable = events.flatMap((e) => (e.kind === 'ignored' && e.why.startsWith('an item we cannot read') ? [e.why] : []));
    if (unreadable.length) console.warn(`Messenger: tenant ${tenant.config.tenantId}: ${unreadable.length} item(s) skipped, e.g. ${unreadable[0]}`);
    const counts = { messages: 0, presses: 0, ignored: 0 };
    for (const e of events) counts[e.kind === 'message' ? 'messages' : e.kind === 'confirm' ? 'presses' : 'ignored']++;
    if (tenant.meta.status === 'suspended') {
      // An operator suspended the tenant: acknowledged (Meta must not retry), no turn; each
      // message gets the tenant's polite suspendedReply through the outbox, nothing else is sent.
      c.header('x-tenant-suspended', '1');
      waitUntilOf(c)(replySuspended(c.get('services'), tenant.config, events));
      return c.json({ received: counts, processed: false });
    }
    if (c.get('storageDown')) return keepThroughOutage(c as unknown as Context<AppContext>, tenant, events, counts);
    waitUntilOf(c)(processMessengerEvents(c.get('services'), tenant, events));
    return c.json({ received: counts });
  });
  return app;
}

/**
 * Redis does not answer, but the isolate knew the tenant and the signature verified: each message
 * is handed to QStash (an inbound retry, run once when Redis is back, its reply through the
 * outbox). If QStash refuses too, 503: Meta retries the webhook. Button presses need Redis; Meta's
 * retry brings them back.
 */
async function keepThroughOutage(c: Context<AppContext>, tenant: LoadedTenant, events: ReturnType<typeof readEvents>, counts: Record<string, number>): Promise<Response> {
  const messages = events.flatMap((e) => (e.kind === 'message' ? [e.inbound] : []));
  if (events.some((e) => e.kind === 'confirm')) return storageUnavailable(c);
  try {
    const retries = c.get('services').inboundRetries();
    await Promise.all(messages.map((inbound) => retries.publishInboundRetry({ inbound })));
  } catch (err) {
    console.error(`Messenger: inbound retries for tenant ${tenant.config.tenantId} could not be published: ${err instanceof Error ? err.name : 'Error'}`);
    return storageUnavailable(c);
  }
  c.header('x-storage-down', '1');
  return c.json({ received: counts, kept: messages.length });
}
