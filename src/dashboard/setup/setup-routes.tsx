import { parseUntrustedJson } from '../../http/untrusted-json.js';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { MAX_MESSENGER_PAGES, parseTenantConfig, type TenantConfig } from '../../../core/tenant/tenant-config.js';
import { effectiveToolOrder } from '../../../tools/registry.js';
import { appendAudit, configDiffSummary } from '../../tenants/audit-log.js';
import { rotateSecret } from '../../tenants/provisioning.js';
import type { DashboardContext } from '../dashboard-context.js';
import { BASE } from '../dashboard-context.js';
import { configDiff } from './config-diff.js';
import { attributeProblems } from './field-errors.js';
import { formToConfig, type FormFields } from './form-to-config.js';
import { importedConfig, ImportPage } from './import-page.js';
import { manychatKeyProblem, readPageCatalogue } from './manychat-page-api.js';
import {
  saveConfigAtRevision,
  saveSecretsAtRevision,
  WRITE_ONLY_SECRETS,
  type WriteOnlySecret,
} from './save-config.js';
import { isConfigSection, type ConfigSection } from './setup-sections.js';
import { manifestRows, PreviewPage, SecretsPage, SetupIndexPage, SetupPage, setupFieldNames } from './setup-page.js';
import { ManychatGuidePage, type ChannelsOverview } from './manychat-guide-page.js';
import { loadChannelUsage } from '../data/channel-usage.js';
import { checkPageToken } from './page-token-check.js';
import { saveMessengerPagesAtRevision } from './save-messenger-pages.js';
import type { MessengerPageRow } from './setup-page.js';

const RevSchema = z.coerce.number().int().min(0);
const OverlapSchema = z.coerce
  .number()
  .int()
  .min(0)
  .max(7 * 24 * 60);

const SAVED_NOTICES: Record<string, string> = {
  config: 'Saved. New turns use this configuration.',
  secrets: 'Secrets replaced.',
  pages: 'Messenger pages saved; every new token was checked with Meta.',
  'pages-format':
    'Messenger pages saved. Meta could not be reached, so the new tokens were checked only for their format.',
};

type C = Context<DashboardContext>;

/** Which secrets are configured (yes/no only: a secret's value never reaches a page). */
function secretsSet(c: C): Record<string, boolean> {
  const s = c.get('tenant').secrets;
  return Object.fromEntries(WRITE_ONLY_SECRETS.map((n) => [n, Boolean(s[n])]));
}

/** The tenant's channels: use from its own turn log, and what is enabled (a secret only as yes/no). */
async function channelsOverview(c: C): Promise<ChannelsOverview> {
  const { config, secrets } = c.get('tenant');
  const { usage, read } = await loadChannelUsage(c.get('session'), c.get('dash').tenantId);
  return {
    usage,
    read,
    manyChatApiKey: Boolean(secrets.manychatApiKey),
    messengerPages: (config.messenger?.pages ?? []).map((p) => ({ id: p.id, name: p.name })),
  };
}

const savedNotice = (c: C) => {
  const saved = SAVED_NOTICES[c.req.query('saved') ?? ''];
  return saved ? { kind: 'ok' as const, text: saved } : undefined;
};

function renderSection(
  c: C,
  section: ConfigSection,
  values: Record<string, unknown>,
  problems: string[],
  rev: number,
  notice?: { kind: 'ok' | 'error' | 'info'; text: string },
  status: 200 | 400 | 409 = 200,
) {
  const manifestIndex = new Map(manifestRows(values).map((name, i) => [name, i]));
  const errors = attributeProblems(problems, setupFieldNames(values, section), manifestIndex);
  return c.html(
    <SetupPage
      dash={c.get('dash')}
      tenantName={c.get('tenant').config.displayName}
      section={section}
      values={values}
      rev={rev}
      errors={errors}
      notice={notice}
    />,
    status,
  );
}

/** The tenant's pages with whether each has a stored token (its own, or the first page's messengerPageAccessToken). */
function pageRows(c: C): MessengerPageRow[] {
  const { config, secrets } = c.get('tenant');
  return config.messenger.pages.map((p, i) => ({
    id: p.id,
    name: p.name,
    tokenSet: Boolean(secrets.messengerPageTokens?.[p.id] || (i === 0 && secrets.messengerPageAccessToken)),
  }));
}

function renderSecrets(
  c: C,
  problems: Record<string, string[]>,
  notice?: { kind: 'ok' | 'error' | 'info'; text: string },
  status: 200 | 400 | 409 = 200,
  postedPages?: MessengerPageRow[],
) {
  return c.html(
    <SecretsPage
      dash={c.get('dash')}
      tenantName={c.get('tenant').config.displayName}
      rev={c.get('tenantRev')}
      secretsSet={secretsSet(c)}
      pages={pageRows(c)}
      postedPages={postedPages}
      errors={new Map(Object.entries(problems))}
      notice={notice}
    />,
    status,
  );
}

const PAGE_ID = /^\d{1,30}$/;
const field = (form: Record<string, unknown>, name: string) => {
  const v = form[name];
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * What the registry would refuse to offer, said at save rather than found in a turn's notes: a
 * read kind declared write, a write kind declared read, a tool that cannot answer directly. A
 * tool left undeclared on purpose ("not declared") is not a problem.
 */
function registrationProblems(config: TenantConfig): string[] {
  try {
    return effectiveToolOrder(config)
      .notRegistered.filter((p) => !/is not declared in tenant/.test(p))
      .map((p) => p.replace(/; it was not registered$/, '; it would not be offered to the model'));
  } catch {
    return [];
  }
}

const webhookUrlOf = (c: C) => {
  const base = c.get('services').env.PUBLIC_URL ?? new URL(c.req.url).origin;
  return `${base.replace(/\/$/, '')}/v1/manychat/${c.get('dash').tenantId}`;
};

const catalogueOf = (c: C) =>
  readPageCatalogue(
    c.get('services').fetch,
    c.get('services').env.MANYCHAT_API_URL,
    c.get('tenant').secrets.manychatApiKey ?? '',
  );

/**
 * `/dashboard/setup`: an index of sections; each config section is edited on its own page →
 * review (a diff; every problem next to its field, nothing saved) → save (validated again,
 * refused if the tenant changed since the form was read). Channels (Connect ManyChat, the
 * webhook secret) and Secrets (write-only, with a check of the ManyChat key) have pages too.
 */
export function setupRoutes() {
  const app = new Hono<DashboardContext>();

  app.get('/', (c) =>
    c.html(
      <SetupIndexPage
        dash={c.get('dash')}
        tenantName={c.get('tenant').config.displayName}
        values={c.get('tenant').config}
        secretsSet={secretsSet(c)}
        notice={savedNotice(c)}
      />,
    ),
  );

  // The old address of the ManyChat walkthrough.
  app.get('/manychat', (c) => c.redirect(`${BASE}/setup/channels`, 301));
  app.get('/channels', async (c) =>
    c.html(
      <ManychatGuidePage
        dash={c.get('dash')}
        tenantName={c.get('tenant').config.displayName}
        webhookUrl={webhookUrlOf(c)}
        overview={await channelsOverview(c)}
      />,
    ),
  );

  app.post('/channels/rotate', async (c) => {
    const form = await c.req.parseBody();
    const overlap = OverlapSchema.safeParse(form.overlapMinutes === '' ? undefined : (form.overlapMinutes ?? 60));
    const { tenantId, user } = c.get('dash');
    const common = {
      dash: c.get('dash'),
      tenantName: c.get('tenant').config.displayName,
      webhookUrl: webhookUrlOf(c),
      overview: await channelsOverview(c),
    };
    if (!overlap.success)
      return c.html(
        <ManychatGuidePage
          {...common}
          error="The overlap is a whole number of minutes from 0 to 10080 (a week). Nothing was changed."
        />,
        400,
      );
    // The operator's rotation, for the tenant's own webhook secret only (never the admin secret).
    const rotated = await rotateSecret(
      c.get('session'),
      await c.get('services').secretKeys(),
      tenantId,
      'webhook',
      overlap.data * 60,
    );
    if (!rotated.ok)
      return c.html(
        <ManychatGuidePage {...common} error="The tenant's secrets cannot be read; nothing was changed." />,
        409,
      );
    await appendAudit(c.get('session'), tenantId, {
      actor: `dashboard:${user}`,
      action: 'secret.rotated',
      detail: `webhook secret rotated; the previous one works until ${rotated.previousValidUntil}`,
    });
    return c.html(
      <ManychatGuidePage
        {...common}
        rotation={{ secret: rotated.secret, previousValidUntil: rotated.previousValidUntil }}
      />,
    );
  });

  app.get('/secrets', (c) => renderSecrets(c, {}, savedNotice(c)));

  app.post('/check-manychat', async (c) => {
    const read = await catalogueOf(c);
    if (!read.ok)
      return renderSecrets(c, {}, { kind: 'error', text: `The ManyChat key does not work: ${read.problem}` }, 200);
    const { flows, tags, fields } = read.catalogue;
    return renderSecrets(
      c,
      {},
      {
        kind: 'ok',
        text: `The ManyChat key works: your page has ${flows.length} flows, ${tags.length} tags and ${fields.length} custom fields.`,
      },
    );
  });

  app.get('/import', async (c) => {
    const read = await catalogueOf(c);
    const common = {
      dash: c.get('dash'),
      tenantName: c.get('tenant').config.displayName,
      rev: c.get('tenantRev'),
      config: c.get('tenant').config,
    };
    return read.ok
      ? c.html(<ImportPage {...common} catalogue={read.catalogue} />)
      : c.html(<ImportPage {...common} problem={`Cannot read your ManyChat page: ${read.problem}`} />);
  });

  app.post('/import', async (c) => {
    const form = await c.req.parseBody();
    const rev = RevSchema.safeParse(form.rev);
    const current = c.get('tenant').config;
    const read = await catalogueOf(c);
    const common = { dash: c.get('dash'), tenantName: current.displayName, rev: c.get('tenantRev'), config: current };
    if (!read.ok)
      return c.html(<ImportPage {...common} problem={`Cannot read your ManyChat page: ${read.problem}`} />, 502);
    if (!rev.success)
      return c.html(
        <ImportPage {...common} catalogue={read.catalogue} problem="The form has no revision; reload the page." />,
        400,
      );
    const candidate = importedConfig(current, form, read.catalogue);
    const parsed = parseTenantConfig(candidate);
    if (!parsed.ok) return renderSection(c, 'catalogue', candidate, parsed.problems, rev.data, undefined, 400);
    const diff = configDiff(current, parsed.config);
    return c.html(
      <PreviewPage
        dash={c.get('dash')}
        tenantName={current.displayName}
        lines={diff.lines}
        changed={diff.changed}
        summary={diff.summary}
        configJson={JSON.stringify(parsed.config)}
        rev={rev.data}
        section="catalogue"
      />,
    );
  });

  app.post('/preview', async (c) => {
    const form = (await c.req.parseBody({ all: true })) as FormFields;
    const sectionField = Array.isArray(form.section) ? form.section[0] : form.section;
    if (!isConfigSection(sectionField)) return c.redirect(`${BASE}/setup`, 303);
    const section = sectionField;
    const rev = RevSchema.safeParse(form.rev);
    const current = c.get('tenant').config;
    const candidate = formToConfig(form, current, section);
    const parsed = parseTenantConfig(candidate);
    if (!rev.success)
      return renderSection(
        c,
        section,
        candidate,
        ['the form has no revision; reload the page'],
        c.get('tenantRev'),
        undefined,
        400,
      );
    if (!parsed.ok) return renderSection(c, section, candidate, parsed.problems, rev.data, undefined, 400);
    const refused = registrationProblems(parsed.config);
    if (refused.length) return renderSection(c, section, candidate, refused, rev.data, undefined, 400);
    const diff = configDiff(current, parsed.config);
    return c.html(
      <PreviewPage
        dash={c.get('dash')}
        tenantName={current.displayName}
        lines={diff.lines}
        changed={diff.changed}
        summary={diff.summary}
        configJson={JSON.stringify(parsed.config)}
        rev={rev.data}
        section={section}
      />,
    );
  });

  app.post('/save', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const current = c.get('tenant').config;
    const section: ConfigSection = isConfigSection(form.section) ? form.section : 'persona';
    const rev = RevSchema.safeParse(form.rev);
    // The webhooks' bounded parser: a config nested past the depth limit is a 400 that says so, never a stack overflow.
    const json = parseUntrustedJson(typeof form.config === 'string' ? form.config : '');
    if (!json.ok && typeof form.config === 'string' && form.config !== '')
      return renderSection(
        c,
        section,
        current,
        [`the config was not saved: ${json.error.replace(/^body/, 'it')}`],
        c.get('tenantRev'),
        undefined,
        400,
      );
    const candidate: unknown = json.ok ? json.value : null;
    if (!rev.success || !candidate || typeof candidate !== 'object')
      return renderSection(
        c,
        section,
        current,
        ['the review form was incomplete; nothing was saved'],
        c.get('tenantRev'),
        undefined,
        400,
      );
    const saved = await saveConfigAtRevision(c.get('session'), tenantId, candidate, rev.data);
    if (!saved.ok && saved.kind === 'invalid')
      return renderSection(c, section, candidate as Record<string, unknown>, saved.problems, rev.data, undefined, 400);
    if (!saved.ok) {
      const diff = configDiff(current, candidate);
      const conflict = `Not saved: the configuration was changed by someone else (revision ${rev.data} → ${saved.currentRev}) after you opened it. Go back to setup to see the current version and make your change again.`;
      return c.html(
        <PreviewPage
          dash={c.get('dash')}
          tenantName={current.displayName}
          lines={diff.lines}
          changed={diff.changed}
          summary={diff.summary}
          configJson={JSON.stringify(candidate)}
          rev={rev.data}
          conflict={conflict}
          section={section}
        />,
        409,
      );
    }
    await appendAudit(c.get('session'), tenantId, {
      actor: `dashboard:${user}`,
      action: 'config.changed',
      detail: configDiffSummary(current, saved.config),
    });
    return c.redirect(`${BASE}/setup/${section}?saved=config`, 303);
  });

  app.post('/secrets', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const rev = RevSchema.safeParse(form.rev);
    if (!rev.success)
      return renderSecrets(c, {}, { kind: 'error', text: 'The form has no revision; reload the page.' }, 400);
    const replace: Partial<Record<WriteOnlySecret, string>> = {};
    for (const name of WRITE_ONLY_SECRETS) {
      const value = form[name];
      if (typeof value === 'string' && value.trim()) replace[name] = value.trim();
    }
    // A malformed ManyChat key would be stored and fail every delivery: refused here, by its shape.
    const keyProblem = replace.manychatApiKey ? manychatKeyProblem(replace.manychatApiKey) : null;
    if (keyProblem)
      return renderSecrets(
        c,
        { manychatApiKey: [keyProblem] },
        { kind: 'error', text: 'Not saved: 1 problem (shown next to its field).' },
        400,
      );
    if (replace.notificationUrl && !isHttpsUrl(replace.notificationUrl))
      return renderSecrets(
        c,
        { notificationUrl: ['an https URL, such as https://hooks.slack.com/services/…'] },
        { kind: 'error', text: 'Not saved: 1 problem (shown next to its field).' },
        400,
      );
    const saved = await saveSecretsAtRevision(
      c.get('session'),
      tenantId,
      await c.get('services').secretKeys(),
      replace,
      rev.data,
    );
    if (!saved.ok)
      return renderSecrets(
        c,
        {},
        {
          kind: 'error',
          text:
            saved.kind === 'conflict'
              ? 'Secrets not replaced: the tenant was changed by someone else after you opened this page. Reload and try again.'
              : 'The stored secrets cannot be read.',
        },
        409,
      );
    // The names of what changed, never a value.
    if (saved.changed.length)
      await appendAudit(c.get('session'), tenantId, {
        actor: `dashboard:${user}`,
        action: 'secrets.replaced',
        detail: `replaced: ${saved.changed.join(', ')}`,
      });
    return c.redirect(`${BASE}/setup/secrets?saved=secrets`, 303);
  });

  /**
   * The Messenger pages and their tokens (issue 31). Each new token is checked with Meta (the
   * page it belongs to must be the row's) before anything is saved; every problem is told next to
   * its field, in plain words, and nothing is saved. Tokens are never echoed back.
   */
  app.post('/messenger-pages', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const rev = RevSchema.safeParse(form.rev);
    if (!rev.success)
      return renderSecrets(c, {}, { kind: 'error', text: 'The form has no revision; reload the page.' }, 400);
    const stored = pageRows(c);
    const errors: Record<string, string[]> = {};
    const add = (name: string, problem: string) => (errors[name] = [...(errors[name] ?? []), problem]);
    const rows: { i: number; id: string; name: string; token: string }[] = [];
    for (let i = 0; i <= MAX_MESSENGER_PAGES; i++) {
      const id = field(form, `page_id_${i}`);
      const name = field(form, `page_name_${i}`);
      const token = field(form, `page_token_${i}`);
      if (!id) {
        if (token) add(`page_id_${i}`, 'A token needs the id of its page.');
        continue;
      }
      if (!PAGE_ID.test(id))
        add(`page_id_${i}`, "A page id is the page's number, digits only (Meta Business Suite → page settings).");
      else if (rows.some((r) => r.id === id)) add(`page_id_${i}`, `Page ${id} is listed twice.`);
      if (name.length > 100) add(`page_name_${i}`, 'A name is at most 100 characters.');
      rows.push({ i, id, name, token });
    }
    if (rows.length > MAX_MESSENGER_PAGES)
      add(`page_id_${rows[MAX_MESSENGER_PAGES]!.i}`, `At most ${MAX_MESSENGER_PAGES} pages per tenant.`);
    const graph = { fetch: c.get('services').fetch, graphUrl: c.get('services').env.MESSENGER_GRAPH_URL };
    const notes: string[] = [];
    for (const r of rows) {
      if (errors[`page_id_${r.i}`]) continue;
      if (!r.token) {
        const had = stored.find((p) => p.id === r.id)?.tokenSet ?? false;
        if (!had) add(`page_token_${r.i}`, `Page ${r.id} has no token yet: paste its page access token.`);
        continue;
      }
      const check = await checkPageToken(graph, r.id, r.token);
      if (!check.ok) add(`page_token_${r.i}`, check.problem);
      else if (check.checked === 'format') notes.push(check.note);
    }
    const posted = rows.map((r) => ({
      id: r.id,
      name: r.name || undefined,
      tokenSet: stored.find((p) => p.id === r.id)?.tokenSet ?? false,
    }));
    const count = Object.values(errors).flat().length;
    if (count)
      return renderSecrets(
        c,
        errors,
        {
          kind: 'error',
          text: `Pages not saved: ${count} problem${count === 1 ? '' : 's'} (shown next to the fields).`,
        },
        400,
        posted,
      );
    const saved = await saveMessengerPagesAtRevision(
      c.get('session'),
      tenantId,
      await c.get('services').secretKeys(),
      c.get('tenant').config,
      rows.map((r) => ({ id: r.id, ...(r.name ? { name: r.name } : {}) })),
      Object.fromEntries(rows.filter((r) => r.token).map((r) => [r.id, r.token])),
      rev.data,
    );
    if (!saved.ok)
      return renderSecrets(
        c,
        {},
        {
          kind: 'error',
          text:
            saved.kind === 'invalid'
              ? // Another tenant's id is never shown: only that the page is taken.
                `Pages not saved: ${saved.problems
                  .map((p) =>
                    p.replace(
                      /^messenger page "(\d+)" belongs to tenant ".*"$/,
                      'page $1 is already connected to another account (remove it there first)',
                    ),
                  )
                  .join('; ')}.`
              : saved.kind === 'conflict'
                ? 'Pages not saved: the tenant was changed by someone else after you opened this page. Reload and try again.'
                : 'The stored secrets cannot be read.',
        },
        saved.kind === 'invalid' ? 400 : 409,
        posted,
      );
    // Page ids and which tokens changed, never a token.
    await appendAudit(c.get('session'), tenantId, {
      actor: `dashboard:${user}`,
      action: 'messenger.pages.changed',
      detail: `pages: ${saved.config.messenger.pages.map((p) => p.id).join(', ') || 'none'}; tokens replaced: ${saved.tokensReplaced.join(', ') || 'none'}; removed: ${saved.tokensRemoved.join(', ') || 'none'}`,
    });
    return c.redirect(`${BASE}/setup/secrets?saved=${notes.length ? 'pages-format' : 'pages'}`, 303);
  });

  app.get('/:section', (c) => {
    const section = c.req.param('section');
    if (!isConfigSection(section)) return c.notFound();
    return renderSection(c, section, c.get('tenant').config, [], c.get('tenantRev'), savedNotice(c));
  });
  return app;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
