import { Hono } from 'hono';
import { z } from 'zod';
import type { TenantContext } from '../http/app-context.js';
import { jsonError, parseJsonBody } from '../http/errors.js';
import { requireAdminSecret } from '../http/middleware/admin-auth.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { appendAudit } from '../tenants/audit-log.js';
import { KeyIdSchema } from '../../core/storage/keys.js';
import { listDeadLetters, redriveDeadLetter } from '../../outbox/dead-letters.js';
import { deliverTenantEntry } from '../tenants/deliver-tenant-entry.js';
import {
  listQStashDeadLetters,
  qstashClient,
  retryQStashDeadLetter,
  retryQStashInboundDeadLetters,
} from '../../outbox/qstash-dead-letters.js';

const REDRIVE_BODY_LIMIT = 4 * 1024;

export const RedriveBodySchema = z
  .object({
    /** The dead letter's `entryId` (its outbox entry); `turnId` is accepted for a turn's own entry, where the two are the same. */
    entryId: KeyIdSchema.optional(),
    turnId: KeyIdSchema.optional(),
    actionId: KeyIdSchema,
    /** Needed for a send whose outcome is unknown: the contact may get it twice. */
    sendAnyway: z.boolean().optional(),
  })
  .refine((b) => b.entryId !== undefined || b.turnId !== undefined, {
    message: "name the dead letter's entryId (or turnId)",
    path: ['entryId'],
  });

/**
 * `GET /v1/outbox/dead-letters/:tenant` — the tenant's dead and unknown actions, newest first.
 * `POST /v1/outbox/dead-letters/:tenant/redrive` `{turnId, actionId, sendAnyway?}` — puts one back
 * to pending, publishes its entry and delivers it at once (the publish may be swallowed by
 * QStash's deduplication window; see `redriveDeadLetter`).
 */
export function deadLetterRoutes() {
  const app = new Hono<TenantContext>();
  // The tenant admin secret (Authorization: Bearer), as the rest of the tenant JSON API. (Hono's
  // `/:tenant/*` also matches `/:tenant`.)
  app.use('/:tenant/*', requireAdminSecret());
  app.get('/:tenant', async (c) => {
    const tenantId = c.req.param('tenant');
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    const { env } = c.get('services');
    const [deadLetters, qstash] = await Promise.all([
      listDeadLetters(c.get('session'), tenantId, limit),
      listQStashDeadLetters(qstashClient({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN }), tenantId).catch(
        (err: unknown) => ({ error: `QStash DLQ unavailable: ${err instanceof Error ? err.message : String(err)}` }),
      ),
    ]);
    return c.json({ tenantId, deadLetters, qstash });
  });
  // Every message of the tenant's kept through an outage that QStash gave up on, delivered again (each runs once).
  app.post('/:tenant/qstash/inbound/retry', async (c) => {
    const { env } = c.get('services');
    const tenantId = c.req.param('tenant');
    const result = await retryQStashInboundDeadLetters(
      qstashClient({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN }),
      tenantId,
    );
    if (result.retried.length)
      await appendAudit(c.get('session'), tenantId, {
        actor: 'admin',
        action: 'dead-letter.inbound-retried',
        detail: `${result.retried.length} kept message(s) delivered again`,
      });
    return c.json(result, result.failed.length ? 502 : 200);
  });
  app.post('/:tenant/qstash/:dlqId/retry', async (c) => {
    const { env } = c.get('services');
    const dlqId = c.req.param('dlqId');
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(dlqId)) return jsonError(c, 404, 'no such QStash dead letter');
    const retried = await retryQStashDeadLetter(
      qstashClient({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN }),
      c.req.param('tenant'),
      dlqId,
    );
    if (!retried.ok) return jsonError(c, 404, `no QStash dead letter "${dlqId}" for this tenant`);
    return c.json({ retried: dlqId, messageId: retried.messageId });
  });
  app.post('/:tenant/redrive', limitBody(REDRIVE_BODY_LIMIT), async (c) => {
    const tenantId = c.req.param('tenant');
    const parsed = parseJsonBody(c, await c.req.text(), RedriveBodySchema, 're-drive body');
    if (!parsed.ok) return parsed.response;
    const services = c.get('services');
    const session = c.get('session');
    const entryId = (parsed.value.entryId ?? parsed.value.turnId)!;
    const redriven = await redriveDeadLetter({
      session,
      publisher: services.publisher(),
      tenantId,
      turnId: entryId,
      actionId: parsed.value.actionId,
      ...(parsed.value.sendAnyway !== undefined ? { sendAnyway: parsed.value.sendAnyway } : {}),
    });
    if (!redriven.ok)
      return jsonError(
        c,
        redriven.status,
        redriven.status === 404 && !parsed.value.entryId
          ? `${redriven.error} (an approved or confirmed action lives in the entry its dead letter names as entryId)`
          : redriven.error,
      );
    await appendAudit(session, tenantId, {
      actor: 'admin',
      action: 'dead-letter.redriven',
      detail: `${entryId}/${parsed.value.actionId}${parsed.value.sendAnyway ? ' (send anyway)' : ''}`,
    });
    // Delivered here too, so the tenant sees the result now; a concurrent QStash delivery finds
    // the lease taken (busy) or the work done.
    const delivery = await deliverTenantEntry(services, session, c.get('tenant'), entryId);
    const summary = { outcome: delivery.outcome, entryState: delivery.entryState ?? null, actions: delivery.actions };
    // The answer says what became of the re-driven action: done (200), still on its way (202:
    // QStash retries it), or dead / unknown again (502, with ManyChat's words) — never "ok" for
    // an action that died again.
    const action = delivery.actions.find((a) => a.id === parsed.value.actionId);
    if (action && (action.state === 'dead' || action.state === 'unknown')) {
      return c.json(
        {
          ...redriven,
          ok: false,
          state: action.state,
          error: `action "${action.id}" was re-driven and is ${action.state} again${action.detail ? `: ${action.detail}` : ''}`,
          delivery: summary,
        },
        502,
      );
    }
    if (action?.state === 'done') return c.json({ ...redriven, state: 'done', delivery: summary });
    return c.json({ ...redriven, state: action?.state ?? redriven.state, delivery: summary }, 202);
  });
  return app;
}
