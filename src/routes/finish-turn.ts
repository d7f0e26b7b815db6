import { Hono } from 'hono';
import type { AppContext } from '../http/app-context.js';
import { jsonError, parseJsonText } from '../http/errors.js';
import { verifyQStashRequest } from '../http/qstash-signature.js';
import { loadTenant } from '../tenants/tenant-store.js';
import { FINISH_TURN_PATH, FinishTurnJobSchema } from '../../core/finish-turn-job.js';
import { finishTurn } from '../turn/finish-turn.js';

/** `POST /v1/turns/finish` — QStash's delayed job for a deferred turn; signature required. */
export function finishTurnRoutes() {
  const app = new Hono<AppContext>();
  app.post('/finish', async (c) => {
    const verified = await verifyQStashRequest(c, FINISH_TURN_PATH, 128 * 1024);
    if (!verified.ok) return jsonError(c, verified.status, verified.error);
    const json = parseJsonText(verified.body);
    if (!json.ok) return jsonError(c, 400, json.error);
    const job = FinishTurnJobSchema.safeParse(json.value);
    if (!job.success) return jsonError(c, 400, 'invalid finish-turn job', job.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    const services = c.get('services');
    const session = services.redis();
    const tenant = await loadTenant(session, job.data.inbound.tenantId);
    if (!tenant.found || 'broken' in tenant) {
      c.header('Upstash-NonRetryable-Error', 'true');
      return c.json({ error: `tenant "${job.data.inbound.tenantId}" cannot be loaded` }, 489 as 400);
    }
    const model = services.model(tenant.config);
    const outcome = await finishTurn(
      {
        session,
        model: model.model,
        modelId: model.modelId,
        guardrails: services.guardrails,
        publisher: services.publisher(),
        pinSecret: services.env.SESSION_SECRET,
        callbackUrl: `${services.env.PUBLIC_URL.replace(/\/$/, '')}/v1/manychat/${tenant.config.tenantId}`,
      },
      tenant.config,
      job.data,
    );
    return c.json(outcome.kind === 'already-done' ? { outcome: 'already-done', turnId: outcome.turnId } : { outcome: 'finished', turnId: outcome.record.turnId, decision: outcome.record.decision });
  });
  return app;
}
