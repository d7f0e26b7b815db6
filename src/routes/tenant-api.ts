import { tenantWords } from '../../core/tenant/tenant-words.js';
import { Hono } from 'hono';
import { decideApproval, listApprovals } from '../approvals/decide-approval.js';
import { ApproveWithChangesBodySchema, approveWithChanges, auditCorrection } from '../approvals/correct-approval.js';
import { z } from 'zod';
import { parseJsonBody } from '../http/errors.js';
import type { TenantContext } from '../http/app-context.js';
import { jsonError, parseJsonText } from '../http/errors.js';
import { requireAdminSecret } from '../http/middleware/admin-auth.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { effectiveToolOrder, manifestDrift } from '../../tools/registry.js';
import { tenantConfigJsonSchema } from '../../core/tenant/config-json-schema.js';
import { splitProblem } from '../../core/tenant/plain-issues.js';
import { saveTenant } from '../tenants/tenant-store.js';
import { appendAudit, configDiffSummary, readAudit } from '../tenants/audit-log.js';
import { deleteContactData } from '../tenants/contact-deletion.js';
import { registerTurnRecordRoutes } from './turn-records.js';
import { registerNotificationSecretRoute } from './notification-secret.js';
import { sessionSecrets } from '../env.js';

/** Who acts through this API: whoever holds the tenant's admin secret. */
const ADMIN = 'admin';

export const CONFIG_BODY_LIMIT = 256 * 1024;

/** `/v1/tenants/:tenant/…` — config, manifest drift and the approval queue, per tenant. */
export function tenantApiRoutes() {
  const app = new Hono<TenantContext>();
  app.use('/:tenant/*', requireAdminSecret());

  registerTurnRecordRoutes(app);
  registerNotificationSecretRoute(app);

  app.get('/:tenant/config', (c) => c.json(c.get('tenant').config));

  app.put('/:tenant/config', limitBody(CONFIG_BODY_LIMIT), async (c) => {
    const json = parseJsonText(await c.req.text());
    if (!json.ok) return jsonError(c, 400, json.error);
    const tenantId = c.req.param('tenant');
    if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value))
      return jsonError(c, 400, 'config must be a JSON object');
    // The path names the tenant; a body naming another is a mistake to report, never to rewrite.
    const bodyTenant = (json.value as { tenantId?: unknown }).tenantId;
    if (bodyTenant !== undefined && bodyTenant !== tenantId)
      return jsonError(
        c,
        400,
        `the body's tenantId ${JSON.stringify(bodyTenant)} differs from the URL's tenant "${tenantId}"; nothing was saved`,
      );
    const saved = await saveTenant(c.get('session'), { ...(json.value as object), tenantId } as Parameters<
      typeof saveTenant
    >[1]);
    // `details`: each problem as a sentence (`path: words`); `problems`: the same split for programs.
    if (!saved.ok)
      return c.json(
        { error: 'invalid tenant config', details: saved.problems, problems: saved.problems.map(splitProblem) },
        400,
      );
    await appendAudit(c.get('session'), tenantId, {
      actor: ADMIN,
      action: 'config.changed',
      detail: configDiffSummary(c.get('tenant').config, saved.config),
    });
    return c.json({ ok: true, config: saved.config });
  });

  app.get('/:tenant/config/schema', (c) => c.json(tenantConfigJsonSchema()));

  app.get('/:tenant/manifest', (c) => {
    const { config } = c.get('tenant');
    let toolOrder: { order: string[]; notRegistered: string[] } | { error: string };
    try {
      toolOrder = effectiveToolOrder(config);
    } catch (err) {
      toolOrder = { error: err instanceof Error ? err.message : String(err) };
    }
    return c.json({ manifest: config.manifest, drift: manifestDrift(config), toolOrder });
  });

  app.get('/:tenant/approvals', async (c) =>
    c.json({ approvals: await listApprovals(c.get('session'), c.req.param('tenant')) }),
  );

  for (const action of ['approve', 'reject'] as const) {
    app.post(`/:tenant/approvals/:id/${action}`, async (c) => {
      const id = c.req.param('id');
      if (!/^ap_[a-f0-9]{32}$/.test(id)) return jsonError(c, 404, `no approval "${id.slice(0, 60)}"`);
      // A suspended tenant performs nothing new; its outbox only drains what was committed before.
      if (action === 'approve' && c.get('tenant').meta.status === 'suspended')
        return jsonError(
          c,
          409,
          `tenant "${c.req.param('tenant')}" is suspended: approving would perform something new; the approval waits until the tenant is resumed (reject still works)`,
        );
      const services = c.get('services');
      const { config } = c.get('tenant');
      const outcome = await decideApproval(
        {
          session: c.get('session'),
          publisher: services.publisher(),
          pinSecret: sessionSecrets(services.env),
          now: new Date(),
          config,
          words: (locale) => tenantWords(config, locale),
        },
        c.req.param('tenant'),
        id,
        action,
      );
      switch (outcome.result) {
        case 'not-found':
          return jsonError(c, 404, `no approval "${id}"`);
        case 'tampered':
          return jsonError(c, 409, unverifiableApproval(id, outcome.retired === true));
        case 'already-decided':
          return jsonError(c, 409, `approval "${id}" is already ${outcome.status}`);
        case 'expired':
          return jsonError(c, 410, `approval "${id}" expired; nothing was performed and the contact was told`);
        case 'refused':
          await appendAudit(c.get('session'), c.req.param('tenant'), {
            actor: ADMIN,
            action: 'approval.refused',
            detail: `approval ${id}: refused (${outcome.problem})`,
          });
          return jsonError(
            c,
            409,
            `approval "${id}" was not performed: the current configuration no longer allows it (${outcome.problem}); the contact was told nothing was changed`,
          );
        default:
          await appendAudit(c.get('session'), c.req.param('tenant'), {
            actor: ADMIN,
            action: `approval.${outcome.result}`,
            detail: `approval ${id}: ${outcome.result}`,
          });
          return c.json(outcome);
      }
    });
  }

  // Approve with changes: the original is rejected, a new pinned row with the corrected
  // arguments (authored by the admin secret's holder) is checked against the current config and
  // performed once (src/approvals/correct-approval.ts).
  app.post('/:tenant/approvals/:id/approve-with-changes', limitBody(16 * 1024), async (c) => {
    const id = c.req.param('id');
    const tenantId = c.req.param('tenant');
    if (!/^ap_[a-f0-9]{32}$/.test(id)) return jsonError(c, 404, `no approval "${id.slice(0, 60)}"`);
    if (c.get('tenant').meta.status === 'suspended')
      return jsonError(c, 409, `tenant "${tenantId}" is suspended: approving would perform something new`);
    const body = parseJsonBody(c, await c.req.text(), ApproveWithChangesBodySchema, 'approve-with-changes body');
    if (!body.ok) return body.response;
    const services = c.get('services');
    const { config } = c.get('tenant');
    const before = (await listApprovals(c.get('session'), tenantId)).find((a) => a.id === id);
    const outcome = await approveWithChanges(
      {
        session: c.get('session'),
        publisher: services.publisher(),
        pinSecret: sessionSecrets(services.env),
        now: new Date(),
        words: (locale) => tenantWords(config, locale),
        config,
        author: ADMIN,
      },
      tenantId,
      id,
      body.value.args,
    );
    switch (outcome.result) {
      case 'invalid':
        return jsonError(c, 400, outcome.problem);
      case 'not-found':
        return jsonError(c, 404, `no approval "${id}"`);
      case 'tampered':
        return jsonError(c, 409, unverifiableApproval(id, outcome.retired === true));
      case 'already-decided':
        return jsonError(c, 409, `approval "${outcome.id}" is already ${outcome.status}`);
      case 'expired':
        return jsonError(c, 410, `approval "${outcome.id}" expired; nothing was performed`);
      default:
        await auditCorrection(
          c.get('session'),
          tenantId,
          ADMIN,
          outcome,
          before ? `${before.tool}(${before.args})` : id,
        );
        return c.json(outcome);
    }
  });

  app.get('/:tenant/audit', async (c) => {
    const offset = Math.max(0, Math.floor(Number(c.req.query('offset') ?? 0)) || 0);
    const limit = Math.min(Math.max(Math.floor(Number(c.req.query('limit') ?? 50)) || 50, 1), 500);
    return c.json(await readAudit(c.get('session'), c.req.param('tenant'), { offset, limit }));
  });

  // A contact's data deleted on request: history, turns, pending rows, handoff state, dead letters.
  app.delete('/:tenant/contacts/:contact', async (c) => {
    const tenantId = c.req.param('tenant');
    const contactId = c.req.param('contact');
    if (!/^[A-Za-z0-9_.:@-]{1,100}$/.test(contactId))
      return jsonError(c, 400, 'contact id has characters that cannot be part of a key');
    const deleted = await deleteContactData(c.get('session'), tenantId, contactId);
    await appendAudit(c.get('session'), tenantId, {
      actor: ADMIN,
      action: 'contact.deleted',
      detail: `contact ${contactId}: ${deleted.turns} turns, ${deleted.rows} pending rows, ${deleted.keys} keys, ${deleted.deadLetters} dead letters`,
    });
    return c.json({ tenantId, contactId, ...deleted });
  });
  return app;
}

/** Why an approval whose signature fails is refused, and what became of it. */
function unverifiableApproval(id: string, retired: boolean): string {
  return `approval "${id}" failed its integrity check (changed in storage, or signed under a SESSION_SECRET this Worker no longer holds); nothing was performed${retired ? ', it is expired and the contact was told' : ''}`;
}
