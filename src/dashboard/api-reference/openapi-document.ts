import { z } from 'zod';
import { TenantConfigSchema } from '../../../core/tenant/tenant-config.js';
import { ManifestSchema } from '../../../core/tenant/manifest.js';
import { DeadLetterSchema } from '../../../outbox/dead-letters.js';
import { AuditEntrySchema } from '../../tenants/audit-log.js';
import { RedriveBodySchema } from '../../routes/dead-letters.js';
import { ApproveWithChangesBodySchema } from '../../approvals/correct-approval.js';

/**
 * The tenant API as an OpenAPI 3.1 document, generated from the zod schemas the routes validate
 * with (zod 4's own JSON Schema output), so the reference cannot drift from what is enforced.
 * The routes themselves stay plain Hono (they predate the dashboard); the request schemas here
 * are the very objects they parse with, the response shapes are written out once below.
 */
const ErrorSchema = z
  .object({
    error: z.string(),
    details: z.array(z.string()).optional().meta({
      description: 'each problem as a sentence, its path first: "flows.1.ns: A flow needs its ManyChat flow id"',
    }),
    problems: z
      .array(z.object({ path: z.string().nullable(), message: z.string() }))
      .optional()
      .meta({
        description: 'an invalid config (PUT …/config): the same problems split into the machine path and the words',
      }),
  })
  .meta({ description: 'Every 4xx/5xx: what is wrong, and each problem' });
const ApprovalViewSchema = z.object({
  id: z.string().regex(/^ap_[a-f0-9]{32}$/),
  status: z.enum(['pending', 'approved', 'rejected', 'expired', 'superseded']),
  card: z.string().meta({ description: 'What a person reads before deciding' }),
  tool: z.string(),
  args: z.string().meta({ description: 'The pinned arguments, canonical JSON (sorted keys)' }),
  contactId: z.string(),
  turnId: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
const DecisionSchema = z.object({ result: z.enum(['approved', 'rejected']), id: z.string() });
const CorrectionSchema = z.object({
  result: z.enum(['approved', 'superseded']).meta({
    description:
      'approved: the new row was approved and handed to the outbox; superseded: the same corrected call already waits in another row, which owns it (this one performs nothing)',
  }),
  id: z.string().meta({ description: 'The original approval, now rejected (its terms unchanged)' }),
  correctedId: z.string().meta({ description: 'The new pinned row, authored by the admin secret' }),
  args: z.record(z.string(), z.unknown()).optional().meta({ description: 'The corrected arguments as pinned' }),
});
const approvalId = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^ap_[a-f0-9]{32}$' } };

const json = (schema: z.ZodType, io: 'input' | 'output' = 'output') => ({
  'application/json': { schema: z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) },
});
const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [String(code), { description: ERROR_TEXT[code] ?? 'error', content: json(ErrorSchema) }]),
  );
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid input (each problem listed)',
  401: 'missing or wrong admin secret, or unknown tenant',
  404: 'not found for this tenant',
  409: 'already decided, or the action is not dead/unknown',
  410: 'expired: nothing was performed',
  413: 'body too large',
};
const tenant = {
  name: 'tenant',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
};

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'staged-agent tenant API',
      version: '1',
      description:
        'Per-tenant configuration, manifest, approvals, audit log, dead letters and handoff release. Authenticate with the tenant admin secret: `Authorization: Bearer <secret>`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        adminSecret: {
          type: 'http',
          scheme: 'bearer',
          description: 'The tenant admin secret (not the webhook secret)',
        },
      },
    },
    security: [{ adminSecret: [] }],
    paths: {
      '/v1/tenants/{tenant}/config': {
        get: {
          summary: 'Read the tenant config',
          parameters: [tenant],
          responses: { 200: { description: 'the config', content: json(TenantConfigSchema) }, ...errors(401) },
        },
        put: {
          summary: 'Replace the tenant config (validated whole; 400 lists every problem, nothing stored)',
          parameters: [tenant],
          requestBody: { required: true, content: json(TenantConfigSchema, 'input') },
          responses: {
            200: { description: 'saved', content: json(z.object({ ok: z.literal(true), config: TenantConfigSchema })) },
            ...errors(400, 401, 413),
          },
        },
      },
      '/v1/tenants/{tenant}/manifest': {
        get: {
          summary: 'The tool manifest and its drift',
          parameters: [tenant],
          responses: {
            200: {
              description: 'manifest and drift',
              content: json(
                z.object({
                  manifest: ManifestSchema,
                  drift: z.object({
                    declaredNotRegistered: z.array(z.string()),
                    registeredNotDeclared: z.array(z.string()),
                  }),
                }),
              ),
            },
            ...errors(401),
          },
        },
      },
      '/v1/tenants/{tenant}/approvals': {
        get: {
          summary: 'The approval queue',
          parameters: [tenant],
          responses: {
            200: { description: 'approvals', content: json(z.object({ approvals: z.array(ApprovalViewSchema) })) },
            ...errors(401),
          },
        },
      },
      ...Object.fromEntries(
        (['approve', 'reject'] as const).map((action) => [
          `/v1/tenants/{tenant}/approvals/{id}/${action}`,
          {
            post: {
              summary:
                action === 'approve'
                  ? 'Approve: performs exactly the pinned call, once'
                  : 'Reject: performs nothing; the contact is told',
              parameters: [tenant, approvalId],
              responses: {
                200: { description: 'decided', content: json(DecisionSchema) },
                ...errors(401, 404, 409, 410),
              },
            },
          },
        ]),
      ),
      '/v1/tenants/{tenant}/approvals/{id}/approve-with-changes': {
        post: {
          summary:
            'Approve with changes: the original is rejected (never edited) and a new pinned row with the corrected arguments, authored by the approver, is checked against the current config and performed once; both audited',
          parameters: [tenant, approvalId],
          requestBody: { required: true, content: json(ApproveWithChangesBodySchema, 'input') },
          responses: {
            200: { description: 'corrected', content: json(CorrectionSchema) },
            ...errors(400, 401, 404, 409, 410, 413),
          },
        },
      },
      '/v1/tenants/{tenant}/turns/{turnId}': {
        get: {
          summary:
            "The stored turn record (the id is the webhook's x-turn-id): model steps, staged actions, verdicts, decision, what was committed or pinned, timings",
          parameters: [tenant, { name: 'turnId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'the turn record' }, ...errors(401, 404) },
        },
      },
      '/v1/tenants/{tenant}/config/schema': {
        get: {
          summary: "The config's JSON Schema (draft 2020-12)",
          parameters: [tenant],
          responses: { 200: { description: 'JSON Schema' }, ...errors(401) },
        },
      },
      '/v1/tenants/{tenant}/notifications/secret': {
        get: {
          summary:
            'The whsec_… secret the tenant endpoint verifies notifications with (approvals, handoffs, alerts; Standard Webhooks)',
          parameters: [tenant],
          responses: {
            200: { description: 'the secret', content: json(z.object({ scheme: z.string(), secret: z.string() })) },
            ...errors(401),
          },
        },
      },
      '/v1/tenants/{tenant}/audit': {
        get: {
          summary: 'The audit log, newest first',
          parameters: [
            tenant,
            { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
          ],
          responses: {
            200: {
              description: 'a page',
              content: json(z.object({ entries: z.array(AuditEntrySchema), next: z.number().int().nullable() })),
            },
            ...errors(401),
          },
        },
      },
      '/v1/tenants/{tenant}/contacts/{contact}': {
        delete: {
          summary: "Delete a contact's data (history, turns, pending rows, handoff state, dead letters)",
          parameters: [tenant, { name: 'contact', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'what was deleted' }, ...errors(400, 401) },
        },
      },
      '/v1/tenants/{tenant}/contacts/{contact}/release': {
        post: {
          summary: "End a contact's handoff: the model answers them again",
          parameters: [tenant, { name: 'contact', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: {
              description: 'released or not',
              content: json(z.object({ tenantId: z.string(), contactId: z.string(), released: z.boolean() })),
            },
            ...errors(400, 401),
          },
        },
      },
      '/v1/outbox/dead-letters/{tenant}': {
        get: {
          summary: 'Dead and unknown actions, and QStash DLQ messages of the tenant',
          parameters: [tenant],
          responses: {
            200: {
              description: 'dead letters',
              content: json(
                z.object({ tenantId: z.string(), deadLetters: z.array(DeadLetterSchema), qstash: z.unknown() }),
              ),
            },
            ...errors(401),
          },
        },
      },
      '/v1/outbox/dead-letters/{tenant}/redrive': {
        post: {
          summary: 'Re-drive one dead or unknown action (an unknown send needs sendAnyway)',
          parameters: [tenant],
          requestBody: { required: true, content: json(RedriveBodySchema, 'input') },
          responses: { 200: { description: 're-driven and delivered' }, ...errors(400, 401, 404, 409, 413) },
        },
      },
    },
  };
}
