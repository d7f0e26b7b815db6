import { parseUntrustedJson } from '../../http/untrusted-json.js';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { parseTenantConfig } from '../../../core/tenant/tenant-config.js';
import { appendAudit, configDiffSummary } from '../../tenants/audit-log.js';
import type { DashboardContext } from '../dashboard-context.js';
import { BASE } from '../dashboard-context.js';
import { configDiff } from './config-diff.js';
import { attributeProblems } from './field-errors.js';
import { formToConfig, type FormFields } from './form-to-config.js';
import { saveConfigAtRevision, saveSecretsAtRevision, WRITE_ONLY_SECRETS, type WriteOnlySecret } from './save-config.js';
import { manifestRows, PreviewPage, SetupPage, setupFieldNames } from './setup-page.js';
import { ManychatGuidePage } from './manychat-guide-page.js';

const RevSchema = z.coerce.number().int().min(0);

const SAVED_NOTICES: Record<string, string> = {
  config: 'Saved. New turns use this configuration.',
  secrets: 'Secrets replaced.',
};

type C = Context<DashboardContext>;

/** Which secrets are configured (yes/no only: a secret's value never reaches a page). */
function secretsSet(c: C): Record<string, boolean> {
  const s = c.get('tenant').secrets;
  return Object.fromEntries(WRITE_ONLY_SECRETS.map((n) => [n, Boolean(s[n])]));
}

function renderSetup(c: C, values: Record<string, unknown>, problems: string[], rev: number, notice?: { kind: 'ok' | 'error' | 'info'; text: string }, status: 200 | 400 | 409 = 200) {
  const manifestIndex = new Map(manifestRows(values).map((name, i) => [name, i]));
  const errors = attributeProblems(problems, setupFieldNames(values), manifestIndex);
  return c.html(<SetupPage dash={c.get('dash')} tenantName={c.get('tenant').config.displayName} values={values} rev={rev} errors={errors} notice={notice} secretsSet={secretsSet(c)} />, status);
}

/**
 * `/dashboard/setup`: edit → review (a diff; every problem next to its field, nothing saved) →
 * save (validated again, refused if the tenant changed since the form was read).
 */
export function setupRoutes() {
  const app = new Hono<DashboardContext>();

  app.get('/', (c) => {
    const saved = SAVED_NOTICES[c.req.query('saved') ?? ''];
    return renderSetup(c, c.get('tenant').config, [], c.get('tenantRev'), saved ? { kind: 'ok', text: saved } : undefined);
  });

  app.get('/manychat', (c) => {
    const { tenantId } = c.get('dash');
    const base = c.get('services').env.PUBLIC_URL ?? new URL(c.req.url).origin;
    return c.html(<ManychatGuidePage dash={c.get('dash')} tenantName={c.get('tenant').config.displayName} webhookUrl={`${base.replace(/\/$/, '')}/v1/manychat/${tenantId}`} />);
  });

  app.post('/preview', async (c) => {
    const form = (await c.req.parseBody({ all: true })) as FormFields;
    const rev = RevSchema.safeParse(form.rev);
    const current = c.get('tenant').config;
    const candidate = formToConfig(form, current);
    const parsed = parseTenantConfig(candidate);
    if (!rev.success) return renderSetup(c, candidate, ['the form has no revision; reload the page'], c.get('tenantRev'), undefined, 400);
    if (!parsed.ok) return renderSetup(c, candidate, parsed.problems, rev.data, undefined, 400);
    const diff = configDiff(current, parsed.config);
    return c.html(<PreviewPage dash={c.get('dash')} tenantName={current.displayName} lines={diff.lines} changed={diff.changed} configJson={JSON.stringify(parsed.config)} rev={rev.data} />);
  });

  app.post('/save', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const current = c.get('tenant').config;
    const rev = RevSchema.safeParse(form.rev);
    // The webhooks' bounded parser: a config nested past the depth limit is a 400 that says so, never a stack overflow.
    const json = parseUntrustedJson(typeof form.config === 'string' ? form.config : '');
    if (!json.ok && typeof form.config === 'string' && form.config !== '') return renderSetup(c, current, [`the config was not saved: ${json.error.replace(/^body/, 'it')}`], c.get('tenantRev'), undefined, 400);
    const candidate: unknown = json.ok ? json.value : null;
    if (!rev.success || !candidate || typeof candidate !== 'object') return renderSetup(c, current, ['the review form was incomplete; nothing was saved'], c.get('tenantRev'), undefined, 400);
    const saved = await saveConfigAtRevision(c.get('session'), tenantId, candidate, rev.data);
    if (!saved.ok && saved.kind === 'invalid') return renderSetup(c, candidate as Record<string, unknown>, saved.problems, rev.data, undefined, 400);
    if (!saved.ok) {
      const diff = configDiff(current, candidate);
      const conflict = `Not saved: the configuration was changed by someone else (revision ${rev.data} → ${saved.currentRev}) after you opened it. Go back to setup to see the current version and make your change again.`;
      return c.html(<PreviewPage dash={c.get('dash')} tenantName={current.displayName} lines={diff.lines} changed={diff.changed} configJson={JSON.stringify(candidate)} rev={rev.data} conflict={conflict} />, 409);
    }
    await appendAudit(c.get('session'), tenantId, { actor: `dashboard:${user}`, action: 'config.changed', detail: configDiffSummary(current, saved.config) });
    return c.redirect(`${BASE}/setup?saved=config`, 303);
  });

  app.post('/secrets', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const rev = RevSchema.safeParse(form.rev);
    if (!rev.success) return renderSetup(c, c.get('tenant').config, ['the form has no revision; reload the page'], c.get('tenantRev'), undefined, 400);
    const replace: Partial<Record<WriteOnlySecret, string>> = {};
    for (const name of WRITE_ONLY_SECRETS) {
      const value = form[name];
      if (typeof value === 'string' && value.trim()) replace[name] = value.trim();
    }
    const saved = await saveSecretsAtRevision(c.get('session'), tenantId, await c.get('services').secretKeys(), replace, rev.data);
    if (!saved.ok) return renderSetup(c, c.get('tenant').config, [saved.kind === 'conflict' ? 'Secrets not replaced: the tenant was changed by someone else after you opened this page. Reload and try again.' : 'The stored secrets cannot be read.'], c.get('tenantRev'), undefined, 409);
    // The names of what changed, never a value.
    if (saved.changed.length) await appendAudit(c.get('session'), tenantId, { actor: `dashboard:${user}`, action: 'secrets.replaced', detail: `replaced: ${saved.changed.join(', ')}` });
    return c.redirect(`${BASE}/setup?saved=secrets`, 303);
  });
  return app;
}
