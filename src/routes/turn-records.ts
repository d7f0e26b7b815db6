import type { Hono } from 'hono';
import { KeyIdSchema } from '../../core/storage/keys.js';
import { readStoredTurn } from '../../core/storage/turn-records.js';
import type { TenantContext } from '../http/app-context.js';
import { jsonError } from '../http/errors.js';

/**
 * `GET /v1/tenants/:tenant/turns/:turnId` — the stored turn record (what the model was asked and
 * said, the verdicts, the decision, what was committed or pinned, timings, round trips). Mounted
 * behind the tenant API's admin authentication; the key is built from the path's tenant, so a
 * tenant reads only its own turns.
 */
export function registerTurnRecordRoutes(app: Hono<TenantContext>): void {
  app.get('/:tenant/turns/:turnId', async (c) => {
    const turnId = c.req.param('turnId');
    const shown = JSON.stringify(turnId.slice(0, 80));
    if (!KeyIdSchema.safeParse(turnId).success)
      return jsonError(c, 404, `no turn ${shown} for tenant "${c.req.param('tenant')}"`);
    // Read through the turn-record store (core/storage/turn-records.ts), under the path's tenant.
    const record = await readStoredTurn(c.get('session'), c.req.param('tenant'), turnId);
    if (!record || typeof record !== 'object')
      return jsonError(
        c,
        404,
        `no turn ${shown} for tenant "${c.req.param('tenant')}" (never recorded, or past the tenant's retention)`,
      );
    return c.json(record);
  });
}
