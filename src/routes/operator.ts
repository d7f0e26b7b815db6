import { Hono } from 'hono';
import { z } from 'zod';
import { TENANT_INDEX_KEY } from '../../core/storage/keys.js';
import { readTenantRev } from '../../core/storage/tenant-record.js';
import { TenantIdSchema } from '../../core/tenant/tenant-id.js';
import { MAX_MESSENGER_PAGES } from '../../core/tenant/tenant-config.js';
import type { AppContext } from '../http/app-context.js';
import { jsonError, parseJsonBody, zodProblems } from '../http/errors.js';
import { limitBody } from '../http/middleware/body-limit.js';
import { requireOperatorSecret } from '../http/middleware/operator-auth.js';
import { AUDIT_LIMIT } from '../tenants/audit-log.js';
import { readOperatorAudit, recordOperatorAction } from '../tenants/operator-audit.js';
import {
  createTenant,
  deleteTenant,
  describeTenant,
  reencryptAll,
  rotateSecret,
  setTenantStatus,
} from '../tenants/provisioning.js';
import { dashboardUserOperatorRoutes } from '../dashboard/operator-users.js';
import { saveSecretsAtRevision } from '../dashboard/setup/save-config.js';

/** The Messenger secrets a tenant holds, write-only (create, and replace after a leak). */
const MessengerSecretsSchema = z.strictObject({
  appSecret: z.string().min(1).max(500).optional(),
  pageAccessToken: z.string().min(1).max(2000).optional(),
  verifyToken: z.string().min(1).max(500).optional(),
  /** Page id → that page's access token, for a tenant with several pages (merged into the ones it holds). */
  pageTokens: z
    .record(z.string().regex(/^\d{1,30}$/, 'a page id is a numeric Meta id'), z.string().min(1).max(2000))
    .refine((r) => Object.keys(r).length <= MAX_MESSENGER_PAGES, `at most ${MAX_MESSENGER_PAGES} page tokens`)
    .optional(),
});
const CreateBodySchema = z.strictObject({
  tenantId: TenantIdSchema,
  /** The tenant config (its tenantId is the body's); absent: a starter config with no tools. */
  config: z.record(z.string(), z.unknown()).optional(),
  manychatApiKey: z.string().min(1).max(500),
  messenger: MessengerSecretsSchema.optional(),
});
/** `PUT …/secrets`: write-only replacements of the secrets the tenant holds for ManyChat and Messenger (a leaked key). */
const ReplaceSecretsSchema = z
  .strictObject({
    manychatApiKey: z.string().min(1).max(500).optional(),
    messenger: MessengerSecretsSchema.optional(),
    /** Where notifications go when the URL is a credential (a Slack incoming webhook): sealed. */
    notificationUrl: z
      .url({ protocol: /^https$/, error: 'an https URL' })
      .max(2000)
      .optional(),
  })
  .refine(
    (b) =>
      b.manychatApiKey !== undefined || b.notificationUrl !== undefined || Object.keys(b.messenger ?? {}).length > 0,
    'name at least one secret to replace: manychatApiKey, notificationUrl, messenger.appSecret, messenger.pageAccessToken, messenger.pageTokens or messenger.verifyToken',
  );
const RotateBodySchema = z.strictObject({
  secret: z.enum(['webhook', 'admin']),
  overlapMinutes: z
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
});
/** `GET /audit`'s query: a page of the operator's audit log, newest first. */
const AuditQuerySchema = z.strictObject({
  offset: z.coerce.number().int().min(0).max(AUDIT_LIMIT).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/**
 * `/v1/operator/…` — the operator's API (OPERATOR_SECRET): tenants created, listed, shown,
 * their secrets rotated (webhook, admin) or replaced (ManyChat key, Messenger secrets: write-only), suspended, resumed, deleted; every tenant's secrets re-encrypted under
 * the current key. Each action is recorded on the operator's audit log (`GET /audit`, which
 * outlives a deleted tenant) and, while the tenant exists, on its own. `npm run tenant` is its
 * command line.
 */
export function operatorRoutes() {
  const app = new Hono<AppContext>();
  app.use('*', requireOperatorSecret());
  const id = (raw: string) => TenantIdSchema.safeParse(raw);

  app.post('/tenants', limitBody(256 * 1024), async (c) => {
    const body = parseJsonBody(c, await c.req.text(), CreateBodySchema, 'tenant');
    if (!body.ok) return body.response;
    const { tenantId, config, manychatApiKey, messenger } = body.value;
    const created = await createTenant(c.get('session'), await c.get('services').secretKeys(), {
      tenantId,
      ...(config ? { config } : {}),
      secrets: {
        manychatApiKey,
        ...(messenger?.appSecret ? { messengerAppSecret: messenger.appSecret } : {}),
        ...(messenger?.pageAccessToken ? { messengerPageAccessToken: messenger.pageAccessToken } : {}),
        ...(messenger?.verifyToken ? { messengerVerifyToken: messenger.verifyToken } : {}),
        ...(messenger?.pageTokens ? { messengerPageTokens: messenger.pageTokens } : {}),
      },
    });
    if (!created.ok) return jsonError(c, created.status, created.error, created.problems);
    await recordOperatorAction(c.get('session'), {
      action: 'tenant.created',
      tenantId,
      detail: 'tenant created; webhook and admin secrets issued',
    });
    // Shown once: only their keyed hashes are stored.
    return c.json(
      {
        tenantId,
        webhookSecret: created.webhookSecret,
        adminSecret: created.adminSecret,
        note: 'store these secrets now; they are not shown again',
      },
      201,
    );
  });

  app.get('/tenants', async (c) => {
    const session = c.get('session');
    const ids = (await session.one((r) => r.smembers(TENANT_INDEX_KEY)))
      .filter((t): t is string => typeof t === 'string' && id(t).success)
      .sort();
    const tenants = await Promise.all(ids.map((t) => describeTenant(session, t)));
    return c.json({ tenants: tenants.filter(Boolean) });
  });

  app.get('/tenants/:tenant', async (c) => {
    const tenantId = id(c.req.param('tenant'));
    const described = tenantId.success ? await describeTenant(c.get('session'), tenantId.data) : null;
    return described ? c.json(described) : jsonError(c, 404, `no tenant "${c.req.param('tenant').slice(0, 63)}"`);
  });

  app.post('/tenants/:tenant/rotate', limitBody(4096), async (c) => {
    const tenantId = id(c.req.param('tenant'));
    const body = parseJsonBody(c, await c.req.text(), RotateBodySchema, 'rotation');
    if (!body.ok) return body.response;
    if (!tenantId.success) return jsonError(c, 404, 'no such tenant');
    const rotated = await rotateSecret(
      c.get('session'),
      await c.get('services').secretKeys(),
      tenantId.data,
      body.value.secret,
      Math.round(body.value.overlapMinutes * 60),
    );
    if (!rotated.ok) return jsonError(c, 404, `no tenant "${tenantId.data}"`);
    await recordOperatorAction(c.get('session'), {
      action: 'secret.rotated',
      tenantId: tenantId.data,
      detail: `${body.value.secret} secret rotated; the previous one works until ${rotated.previousValidUntil}`,
    });
    return c.json({
      tenantId: tenantId.data,
      secret: body.value.secret,
      value: rotated.secret,
      previousValidUntil: rotated.previousValidUntil,
      note: 'store this secret now; it is not shown again',
    });
  });

  app.put('/tenants/:tenant/secrets', limitBody(8192), async (c) => {
    const tenantId = id(c.req.param('tenant'));
    const body = parseJsonBody(c, await c.req.text(), ReplaceSecretsSchema, 'secrets');
    if (!body.ok) return body.response;
    if (!tenantId.success) return jsonError(c, 404, 'no such tenant');
    const { manychatApiKey, messenger, notificationUrl } = body.value;
    const replace = {
      ...(manychatApiKey ? { manychatApiKey } : {}),
      ...(notificationUrl ? { notificationUrl } : {}),
      ...(messenger?.appSecret ? { messengerAppSecret: messenger.appSecret } : {}),
      ...(messenger?.pageAccessToken ? { messengerPageAccessToken: messenger.pageAccessToken } : {}),
      ...(messenger?.verifyToken ? { messengerVerifyToken: messenger.verifyToken } : {}),
    };
    const session = c.get('session');
    // At the revision read just now: a save racing this one is refused, never half-applied.
    const rev = await readTenantRev(session, tenantId.data);
    const saved = await saveSecretsAtRevision(
      session,
      tenantId.data,
      await c.get('services').secretKeys(),
      replace,
      rev,
      messenger?.pageTokens,
    );
    if (!saved.ok)
      return saved.kind === 'missing'
        ? jsonError(c, 404, `no tenant "${tenantId.data}"`)
        : jsonError(c, 409, 'the tenant changed while its secrets were being replaced; try again');
    // The names of what changed, never a value.
    await recordOperatorAction(session, {
      action: 'secrets.replaced',
      tenantId: tenantId.data,
      detail: `replaced: ${saved.changed.join(', ')}`,
    });
    return c.json({ tenantId: tenantId.data, replaced: saved.changed });
  });

  for (const [path, status] of [
    ['suspend', 'suspended'],
    ['resume', 'active'],
  ] as const) {
    app.post(`/tenants/:tenant/${path}`, async (c) => {
      const tenantId = id(c.req.param('tenant'));
      if (!tenantId.success || !(await setTenantStatus(c.get('session'), tenantId.data, status)))
        return jsonError(c, 404, 'no such tenant');
      await recordOperatorAction(c.get('session'), {
        action: `tenant.${path === 'suspend' ? 'suspended' : 'resumed'}`,
        tenantId: tenantId.data,
        detail: `status ${status}`,
      });
      return c.json({ tenantId: tenantId.data, status });
    });
  }

  app.delete('/tenants/:tenant', async (c) => {
    const tenantId = id(c.req.param('tenant'));
    if (!tenantId.success || !(await describeTenant(c.get('session'), tenantId.data)))
      return jsonError(c, 404, 'no such tenant');
    const result = await deleteTenant(c.get('session'), tenantId.data);
    console.log(`operator: tenant ${tenantId.data} deleted (${result.deleted} keys; ${result.remaining} remain)`);
    // Its own log went with it: the operator's log is where the deletion stays on record.
    await recordOperatorAction(c.get('session'), {
      action: 'tenant.deleted',
      tenantId: tenantId.data,
      detail: `${result.deleted} keys deleted; ${result.remaining} remain`,
      alsoOnTenantLog: false,
    });
    return c.json({ tenantId: tenantId.data, ...result }, result.remaining ? 500 : 200);
  });

  // Dashboard users of a tenant (issue 15): a generated password, shown once.
  app.route('/tenants', dashboardUserOperatorRoutes());

  app.post('/secrets/reencrypt', async (c) => {
    const result = await reencryptAll(c.get('session'), await c.get('services').secretKeys());
    await recordOperatorAction(c.get('session'), {
      action: 'secrets.reencrypted',
      tenantId: null,
      detail: `${result.resealed} of ${result.tenants} tenants resealed under the current key`,
    });
    return c.json(result);
  });

  app.get('/audit', async (c) => {
    const query = AuditQuerySchema.safeParse(c.req.query());
    if (!query.success) return jsonError(c, 400, 'invalid audit query', zodProblems(query.error));
    return c.json(await readOperatorAudit(c.get('session'), query.data));
  });
  return app;
}
