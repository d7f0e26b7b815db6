import { Hono } from 'hono';
import { FINISH_TURN_PATH, FinishTurnJobSchema } from '../../core/finish-turn-job.js';
import type { SignedContext } from '../http/app-context.js';
import { parseJsonBody } from '../http/errors.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { requireQStashSignature } from '../http/middleware/qstash-signature.js';
import { loadTenant } from '../tenants/tenant-store.js';
import { turnDeps } from '../turn/turn-deps.js';
import { finishTurn } from '../turn/finish-turn.js';
import { releaseUnfinishedTurn } from '../turn/release-unfinished-turn.js';

export const FINISH_TURN_BODY_LIMIT = 128 * 1024;

/**
 * `POST /v1/turns/finish` — QStash's delayed job for a deferred turn (or the sweeper's, for a
 * claim whose Worker died); signature required. A suspended tenant's job runs nothing: 200
 * "suspended" (QStash is done with it) and the turn's claim is given back, so the delivery runs
 * when the tenant is resumed and its webhook retried.
 */
export function finishTurnRoutes() {
  const app = new Hono<SignedContext>();
  app.post('/finish', limitBody(FINISH_TURN_BODY_LIMIT), requireQStashSignature(FINISH_TURN_PATH), async (c) => {
    const job = parseJsonBody(c, c.get('signedBody'), FinishTurnJobSchema, 'finish-turn job');
    if (!job.ok) return job.response;
    const services = c.get('services');
    const session = c.get('session');
    const tenant = await loadTenant(session, job.value.inbound.tenantId, await c.get('services').secretKeys());
    if (!tenant.found || 'broken' in tenant) {
      c.header('Upstash-NonRetryable-Error', 'true');
      return c.json({ error: `tenant "${job.value.inbound.tenantId}" cannot be loaded` }, 489 as 400);
    }
    if (tenant.meta.status === 'suspended') {
      const released = await releaseUnfinishedTurn(session, job.value);
      if (released.kind === 'already-done') return c.json({ outcome: 'already-done', turnId: job.value.turnId });
      console.log(
        `finish-turn ${tenant.config.tenantId}/${job.value.turnId}: tenant suspended; not run, claim released`,
      );
      c.header('x-tenant-suspended', '1');
      return c.json({
        outcome: 'suspended',
        tenantId: tenant.config.tenantId,
        turnId: job.value.turnId,
        released: released.released,
      });
    }
    const outcome = await finishTurn(
      turnDeps(services, session, tenant.config, tenant.meta.status),
      tenant.config,
      job.value,
    );
    if (outcome.kind === 'refused')
      return c.json({
        outcome: 'suspended',
        tenantId: tenant.config.tenantId,
        turnId: job.value.turnId,
        released: false,
      });
    return c.json(
      outcome.kind === 'already-done'
        ? { outcome: 'already-done', turnId: outcome.turnId }
        : { outcome: 'finished', turnId: outcome.record.turnId, decision: outcome.record.decision },
    );
  });
  return app;
}
