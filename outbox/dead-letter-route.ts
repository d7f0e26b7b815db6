import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../src/http/app-context.js';
import { jsonError, parseJsonText, readBodyLimited } from '../src/http/errors.js';
import { secretsEqual } from '../src/security/constant-time.js';
import { assertSafeId } from '../src/storage/keys.js';
import type { RedisSession } from '../src/storage/redis-session.js';
import { loadTenant, sha256Hex, type TenantLoad } from '../src/tenants/tenant-store.js';
import { WEBHOOK_SECRET_HEADER } from '../src/channels/manychat/route.js';
import { listDeadLetters, redriveDeadLetter } from './dead-letters.js';
import { deliverOutboxEntry } from './deliver-entry.js';
import { createManyChatClient, DEFAULT_MANYCHAT_TIMEOUT_MS } from './manychat-client.js';

const REDRIVE_BODY_LIMIT = 4 * 1024;

const RedriveBodySchema = z.object({
  turnId: z.string().min(1),
  actionId: z.string().min(1),
  /** Needed for a send whose outcome is unknown: the contact may get it twice. */
  sendAnyway: z.boolean().optional(),
});

type Authed = { ok: true; session: RedisSession; tenantId: string; tenant: Extract<TenantLoad, { config: unknown }> } | { ok: false; res: Response };

/** The tenant's secret header, checked as the ManyChat webhook checks it (digest, constant time). */
async function authenticate(c: Context<AppContext>): Promise<Authed> {
  const tenantId = c.req.param('tenant') ?? '';
  try {
    assertSafeId('tenant id', tenantId);
  } catch {
    return { ok: false, res: jsonError(c, 404, `unknown tenant "${tenantId.slice(0, 60)}"`) };
  }
  const session = c.get('services').redis();
  const tenant = await loadTenant(session, tenantId);
  if (!tenant.found) return { ok: false, res: jsonError(c, 404, `unknown tenant "${tenantId}"`) };
  if ('broken' in tenant) return { ok: false, res: jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, tenant.broken) };
  const provided = c.req.header(WEBHOOK_SECRET_HEADER) ?? '';
  if (!provided) return { ok: false, res: jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`) };
  if (!(await secretsEqual(await sha256Hex(provided), tenant.secrets.webhookSecretSha256))) {
    return { ok: false, res: jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for tenant "${tenantId}"`) };
  }
  return { ok: true, session, tenantId, tenant };
}

/**
 * `GET /v1/outbox/dead-letters/:tenant` — the tenant's dead and unknown actions, newest first.
 * `POST /v1/outbox/dead-letters/:tenant/redrive` `{turnId, actionId, sendAnyway?}` — puts one back
 * to pending, publishes its entry and delivers it at once (the publish may be swallowed by
 * QStash's deduplication window; see `redriveDeadLetter`).
 */
export function deadLetterRoutes() {
  const app = new Hono<AppContext>();
  app.get('/:tenant', async (c) => {
    const auth = await authenticate(c);
    if (!auth.ok) return auth.res;
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    return c.json({ tenantId: auth.tenantId, deadLetters: await listDeadLetters(auth.session, auth.tenantId, limit) });
  });
  app.post('/:tenant/redrive', async (c) => {
    const auth = await authenticate(c);
    if (!auth.ok) return auth.res;
    const body = await readBodyLimited(c, REDRIVE_BODY_LIMIT);
    if (!body.ok) return jsonError(c, body.status, body.error);
    const json = parseJsonText(body.text);
    if (!json.ok) return jsonError(c, 400, json.error);
    const parsed = RedriveBodySchema.safeParse(json.value);
    if (!parsed.success) return jsonError(c, 400, 'invalid re-drive body', parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
    try {
      assertSafeId('turn id', parsed.data.turnId);
    } catch (err) {
      return jsonError(c, 400, err instanceof Error ? err.message : 'invalid turn id');
    }
    const services = c.get('services');
    const redriven = await redriveDeadLetter({ session: auth.session, publisher: services.publisher(), tenantId: auth.tenantId, ...parsed.data });
    if (!redriven.ok) return jsonError(c, redriven.status, redriven.error);
    const manychat = createManyChatClient({ baseUrl: services.env.MANYCHAT_API_URL, apiKey: auth.tenant.secrets.manychatApiKey, fetch: services.fetch, timeoutMs: DEFAULT_MANYCHAT_TIMEOUT_MS });
    // Delivered here too, so the tenant sees the result now; a concurrent QStash delivery finds
    // the lease taken (busy) or the work done.
    const delivery = await deliverOutboxEntry({ session: auth.session, tenantId: auth.tenantId, turnId: parsed.data.turnId, manychat });
    return c.json({ ...redriven, delivery: { outcome: delivery.outcome, entryState: delivery.entryState ?? null, actions: delivery.actions } });
  });
  return app;
}
