import { Hono } from 'hono';
import { INBOUND_RETRY_PATH, InboundRetryJobSchema } from '../../core/inbound-retry-job.js';
import type { SignedContext } from '../http/app-context.js';
import { jsonError, parseJsonBody } from '../http/errors.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { requireQStashSignature } from '../http/middleware/qstash-signature.js';
import { hmacMatchesStored } from '../../core/security/keyed-hash.js';
import { loadTenant } from '../tenants/tenant-store.js';
import { runRetriedInbound } from '../turn/run-retried-inbound.js';
import { turnDeps } from '../turn/turn-deps.js';

export const INBOUND_RETRY_BODY_LIMIT = 128 * 1024;

/**
 * `POST /v1/inbound/retry` — QStash brings back a delivery kept through a Redis outage (signed).
 * Redis still down: 503, and QStash tries again later (its backoff); an unknown tenant: 489 (never
 * retried); a suspended tenant: 200 "suspended", nothing claimed or run (QStash is done with it);
 * otherwise the delivery is claimed and its turn runs, once.
 */
export function inboundRetryRoutes() {
  const app = new Hono<SignedContext>();
  app.post('/retry', limitBody(INBOUND_RETRY_BODY_LIMIT), requireQStashSignature(INBOUND_RETRY_PATH), async (c) => {
    const job = parseJsonBody(c, c.get('signedBody'), InboundRetryJobSchema, 'inbound retry job');
    if (!job.ok) return job.response;
    const { inbound } = job.value;
    const session = c.get('session');
    try {
      const tenant = await loadTenant(session, inbound.tenantId, await c.get('services').secretKeys());
      // Kept by an isolate that could not authenticate it (Redis down, tenant not cached): its
      // secret is checked before anything else. A forged one (or one for no such tenant) is dropped
      // — logged, no claim, no turn — and QStash is done with it (200, not a dead letter to fill).
      const unverified = job.value.unverified;
      if (
        unverified &&
        !(await hmacMatchesStored(
          unverified.secretHmac,
          tenant.found ? tenant.secrets?.webhookSecret : undefined,
          new Date(inbound.receivedAt),
        ))
      ) {
        console.warn(
          `inbound retry for tenant ${inbound.tenantId}: kept unauthenticated during an outage and its secret does not match; dropped, no turn`,
        );
        return c.json({ outcome: 'unauthenticated', tenantId: inbound.tenantId });
      }
      if (!tenant.found || 'broken' in tenant) {
        c.header('Upstash-NonRetryable-Error', 'true');
        return c.json({ error: `tenant "${inbound.tenantId}" cannot be loaded` }, 489 as 400);
      }
      if (tenant.meta.status === 'suspended') {
        console.log(`inbound retry for tenant ${inbound.tenantId}: tenant suspended; not run`);
        c.header('x-tenant-suspended', '1');
        return c.json({ outcome: 'suspended', tenantId: inbound.tenantId });
      }
      const outcome = await runRetriedInbound(
        turnDeps(c.get('services'), session, tenant.config, tenant.meta.status),
        tenant.config,
        inbound,
      );
      if (outcome.kind === 'refused') return c.json({ outcome: 'suspended', tenantId: inbound.tenantId });
      return c.json(
        outcome.kind === 'duplicate'
          ? { outcome: 'duplicate', turnId: outcome.turnId }
          : { outcome: 'finished', turnId: outcome.record.turnId, decision: outcome.record.decision },
      );
    } catch (err) {
      // Redis (most likely) still does not answer: not processed; QStash delivers it again later.
      console.warn(
        `inbound retry for tenant ${inbound.tenantId} not processed yet: ${err instanceof Error ? err.name : 'Error'}`,
      );
      return jsonError(c, 503, 'storage is unavailable; the delivery will be tried again');
    }
  });
  return app;
}
