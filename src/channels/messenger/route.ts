import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { secretsEqual } from '../../../core/security/constant-time.js';
import type { AppContext } from '../../http/app-context.js';
import { jsonError, parseJsonText, zodProblems } from '../../http/errors.js';
import { limitBody } from '../../http/middleware/body-limit.js';
import { logRefusedLookup, lookupTenantFromPath, storageUnavailable } from '../../http/middleware/tenant.js';
import { waitUntilOf } from '../../http/wait-until.js';
import { MessengerWebhookSchema, type MessengerWebhook } from './events-schema.js';
import { admitTenantEvents } from './admit-events.js';
import { ABSENT_SECRET, authenticateMessengerWebhook, secretsOf } from './signature-auth.js';

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
 *   item is read — an entry for a page the tenant does not list is ignored and logged — button
 *   presses are answered, and the webhook answers 200; the turns run after the answer (waitUntil)
 *   and every reply goes through the outbox. Nothing acknowledged is lost (admit-events.ts).
 * The app-wide callback (one URL per Meta app, many pages and tenants) is app-route.ts.
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
      return jsonError(
        c,
        403,
        "subscription check refused: hub.mode must be subscribe and hub.verify_token this tenant's verify token",
      );
    }
    return c.text(query.data['hub.challenge'], 200);
  });

  app.post('/:tenant', limitBody(MESSENGER_BODY_LIMIT), authenticateMessengerWebhook(), async (c) => {
    const tenant = c.get('tenant');
    const webhook = readWebhook(c as unknown as Context<AppContext>, c.get('rawBody'));
    if (!webhook.ok) return webhook.response;
    const admitted = await admitTenantEvents(c.get('services'), tenant, webhook.value, c.get('storageDown'));
    if (admitted.kind === 'unavailable') return storageUnavailable(c);
    if (admitted.background) waitUntilOf(c)(admitted.background);
    if (admitted.suspended) {
      c.header('x-tenant-suspended', '1');
      return c.json({ received: admitted.counts, processed: false });
    }
    if (admitted.kept !== undefined) {
      c.header('x-storage-down', '1');
      return c.json({ received: admitted.counts, kept: admitted.kept });
    }
    return c.json({ received: admitted.counts });
  });
  return app;
}

/** The body as a Messenger webhook: UTF-8, JSON, the schema; else a 400 that names the problem. */
export function readWebhook(
  c: Context<AppContext>,
  raw: Uint8Array,
): { ok: true; value: MessengerWebhook } | { ok: false; response: Response } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    return { ok: false, response: jsonError(c, 400, 'body is not valid UTF-8') };
  }
  const json = parseJsonText(text);
  if (!json.ok) return { ok: false, response: jsonError(c, 400, json.error) };
  const webhook = MessengerWebhookSchema.safeParse(json.value);
  if (!webhook.success)
    return { ok: false, response: jsonError(c, 400, 'invalid Messenger webhook body', zodProblems(webhook.error)) };
  return { ok: true, value: webhook.data };
}
