import type { FC } from 'hono/jsx';
import { MAX_MESSENGER_PAGES, TENANT_LOCALES } from '../../../core/tenant/tenant-config.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import type { DiffLine, DiffSummary } from './config-diff.js';
import { FORM_LEVEL } from './field-errors.js';
import { CheckField, Section, SelectField, TextField, type Errors } from './form-controls.js';
import { guardrailsJson } from './form-to-config.js';
import { WRITE_ONLY_SECRETS } from './save-config.js';

import { CatalogueSection, catalogueFieldNames } from './catalogue-section.js';
import { ToolsSection, toolFieldNames, toolRows } from './tools-section.js';
import { SETUP_SECTIONS, type SetupSection } from './setup-sections.js';

type Values = Record<string, unknown>;
type Row = Record<string, unknown>;
const list = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});

/** Tool names in row order (a tool's row index is where its manifest problems are shown). */
export function manifestRows(values: Values): string[] {
  return toolRows(values).map((r) => r.name);
}

const SECTION_FIELDS: Record<Exclude<SetupSection, 'channels' | 'secrets'>, (values: Values) => string[]> = {
  persona: () => ['displayName', 'persona', 'modelId', 'locale', 'deadlineMs', 'holdingReply', 'fallbackReply'],
  catalogue: catalogueFieldNames,
  tools: toolFieldNames,
  guardrails: () => [
    'thresholds.minConfidence',
    'thresholds.guardrailTimeoutMs',
    'guardrails',
    'guardrails.content.denyPhrases',
    'guardrails.content.blockCardNumbers',
  ],
  handoff: () => ['handoff.tag', 'handoff.reply', 'handoff.silenceMinutes'],
};

/** Every field name a section's form renders for these values: where a problem can be shown. Absent section: every section's. */
export function setupFieldNames(values: Values, section?: SetupSection): Set<string> {
  const pick = section ? [section] : Object.keys(SECTION_FIELDS);
  return new Set(
    pick.flatMap((s) => (s in SECTION_FIELDS ? SECTION_FIELDS[s as keyof typeof SECTION_FIELDS](values) : [])),
  );
}

/** The links to every section, the current one marked. */
export const SectionNav: FC<{ current?: SetupSection | undefined }> = ({ current }) => (
  <nav aria-label="Setup sections" class="section-nav">
    <ul>
      {SETUP_SECTIONS.map((s) => (
        <li>
          <a href={`${BASE}/setup/${s.id}`} aria-current={s.id === current ? 'page' : undefined}>
            {s.title}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

/** `/setup`: where each part of the setup is, and how far along it is. */
export const SetupIndexPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  values: Values;
  secretsSet: Record<string, boolean>;
  notice?: { kind: 'ok' | 'error' | 'info'; text: string } | undefined;
}> = ({ dash, tenantName, values, secretsSet, notice }) => {
  const count = (k: string) => list(values[k]).length;
  const status: Record<SetupSection, string> = {
    persona: String(values.displayName ?? ''),
    catalogue: `${count('flows')} flows, ${count('contents')} prepared messages, ${count('tags')} tags, ${count('fields')} custom fields, ${count('faq')} FAQ entries`,
    tools: `${count('tools')} tools, ${Object.keys(obj(values.manifest)).length} declared`,
    guardrails: `minimum confidence ${String(obj(values.thresholds).minConfidence ?? '')}`,
    handoff: obj(values.handoff).tag ? `tag ${String(obj(values.handoff).tag)}` : 'no handoff tag',
    channels: 'your webhook URL, request template and webhook secret',
    secrets: `ManyChat API key ${secretsSet.manychatApiKey ? 'set' : 'not set'}`,
  };
  return (
    <Layout title="Setup" section="setup" dash={dash} tenantName={tenantName}>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <p>Each part is saved on its own, after you review what changes.</p>
      <ul class="section-index">
        {SETUP_SECTIONS.map((s) => (
          <li class="card">
            <h2>
              <a href={`${BASE}/setup/${s.id}`}>{s.title}</a>
            </h2>
            <p>{s.summary}</p>
            <p class="muted">{status[s.id]}</p>
          </li>
        ))}
      </ul>
    </Layout>
  );
};

/** One config section's form: posts to the review step with its section, so only its fields change. */
export const SetupPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  section: Exclude<SetupSection, 'channels' | 'secrets'>;
  values: Values;
  rev: number;
  errors: Errors;
  notice?: { kind: 'ok' | 'error' | 'info'; text: string } | undefined;
}> = ({ dash, tenantName, section, values, rev, errors, notice }) => {
  const meta = SETUP_SECTIONS.find((s) => s.id === section)!;
  const thresholds = obj(values.thresholds);
  const content = obj(obj(values.guardrails).content);
  const handoff = obj(values.handoff);
  const tags = list(values.tags);
  const formErrors = errors.get(FORM_LEVEL) ?? [];
  const problemCount = [...errors.values()].reduce((n, l) => n + l.length, 0);
  return (
    <Layout title={`Setup: ${meta.title}`} section="setup" dash={dash} tenantName={tenantName}>
      <SectionNav current={section} />
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <p class="muted">{meta.summary}</p>
      {problemCount ? (
        <Notice kind="error">{`Not saved: ${problemCount} problem${problemCount > 1 ? 's' : ''} (shown next to ${problemCount > 1 ? 'their fields' : 'its field'}).`}</Notice>
      ) : null}
      {formErrors.length ? (
        <ul class="error" role="alert">
          {formErrors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      ) : null}
      <form method="post" action={`${BASE}/setup/preview`} novalidate>
        <CsrfField token={dash.csrf} />
        <input type="hidden" name="rev" value={String(rev)} />
        <input type="hidden" name="section" value={section} />
        {section === 'persona' ? (
          <>
            <Section name="persona-section" legend="Persona and model" errors={errors}>
              <TextField name="displayName" label="Display name" value={values.displayName} errors={errors} />
              <TextField
                name="persona"
                label="Persona (what the model is told it is)"
                value={values.persona}
                errors={errors}
                textarea
              />
              <TextField
                name="modelId"
                label="Model id"
                value={values.modelId}
                errors={errors}
                hint="The hosted model; the offline rule model ignores it."
              />
              <SelectField
                name="locale"
                label="Language of the runtime's own words"
                value={values.locale}
                options={TENANT_LOCALES.map((l) => [l, l] as const)}
                errors={errors}
              />
              <TextField
                name="fallbackReply"
                label="Fallback reply (vetoed or failed turns)"
                value={values.fallbackReply}
                errors={errors}
                textarea
              />
            </Section>
            <Section name="deadline-section" legend="Deadline and holding message" errors={errors}>
              <TextField
                name="deadlineMs"
                label="Deadline (ms, 500–9500)"
                value={values.deadlineMs}
                errors={errors}
                type="number"
              />
              <TextField
                name="holdingReply"
                label="Holding message (sent at the deadline; empty: nothing)"
                value={values.holdingReply}
                errors={errors}
                textarea
              />
            </Section>
          </>
        ) : null}
        {section === 'catalogue' ? <CatalogueSection values={values} errors={errors} /> : null}
        {section === 'tools' ? <ToolsSection values={values} errors={errors} /> : null}
        {section === 'guardrails' ? (
          <Section name="guardrail-section" legend="Guardrails" errors={errors}>
            <TextField
              name="thresholds.minConfidence"
              label="Minimum confidence (0–1; below it the turn escalates)"
              value={thresholds.minConfidence}
              errors={errors}
            />
            <TextField
              name="thresholds.guardrailTimeoutMs"
              label="Guardrail time budget (ms)"
              value={thresholds.guardrailTimeoutMs}
              errors={errors}
              type="number"
            />
            <TextField
              name="guardrails.content.denyPhrases"
              label="Deny-list: phrases a reply must never contain (one a line)"
              value={Array.isArray(content.denyPhrases) ? content.denyPhrases.join('\n') : ''}
              errors={errors}
              textarea
            />
            <CheckField
              name="guardrails.content.blockCardNumbers"
              label="Block payment card numbers"
              checked={content.blockCardNumbers !== false}
              errors={errors}
            />
            <TextField
              name="guardrails"
              label="Other guardrail settings (JSON: PII patterns, caps, rate limits, leak thresholds)"
              value={guardrailsJson(values.guardrails)}
              errors={errors}
              textarea
            />
          </Section>
        ) : null}
        {section === 'handoff' ? (
          <Section name="handoff-section" legend="Handoff" errors={errors}>
            <SelectField
              name="handoff.tag"
              label="Tag added on handoff"
              value={handoff.tag ?? ''}
              options={[
                ['', 'none'],
                ...[
                  ...new Set([...tags.map((t) => String(t.name)), ...(handoff.tag ? [String(handoff.tag)] : [])]),
                ].map((n) => [n, n] as const),
              ]}
              errors={errors}
            />
            <TextField name="handoff.reply" label="Reply on handoff" value={handoff.reply} errors={errors} textarea />
            <TextField
              name="handoff.silenceMinutes"
              label="Minutes the agent stays silent after a handoff"
              value={handoff.silenceMinutes}
              errors={errors}
              type="number"
            />
          </Section>
        ) : null}
        <div class="actions">
          <button type="submit">Review changes</button>
        </div>
      </form>
    </Layout>
  );
};

/** `/setup/secrets`: write-only secrets, and a check that the ManyChat key works. */
export const SecretsPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  rev: number;
  secretsSet: Record<string, boolean>;
  /** The tenant's Messenger pages, each with whether a token is stored for it (never the token). */
  pages: MessengerPageRow[];
  errors: Errors;
  notice?: { kind: 'ok' | 'error' | 'info'; text: string } | undefined;
  /** The page rows as posted, after a refused save (ids and names only: a token is never echoed). */
  postedPages?: MessengerPageRow[] | undefined;
}> = ({ dash, tenantName, rev, secretsSet, pages, errors, notice, postedPages }) => (
  <Layout title="Setup: Secrets" section="setup" dash={dash} tenantName={tenantName}>
    <SectionNav current="secrets" />
    {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
    <form method="post" action={`${BASE}/setup/secrets`} class="card">
      <h2>Secrets (write-only)</h2>
      <p class="muted">Stored encrypted; never shown again. Leave a field empty to keep its current value.</p>
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="rev" value={String(rev)} />
      {WRITE_ONLY_SECRETS.map((name) => (
        <TextField
          name={name}
          label={`${SECRET_LABELS[name]} (${secretsSet[name] ? 'set' : 'not set'})`}
          value=""
          type="password"
          errors={errors}
          {...(name === 'manychatApiKey'
            ? { hint: 'ManyChat → Settings → API: "<page id>:<secret>", copied whole.' }
            : {})}
        />
      ))}
      <div class="actions">
        <button type="submit">Replace secrets</button>
      </div>
    </form>
    <MessengerPagesForm dash={dash} rev={rev} pages={postedPages ?? pages} errors={errors} />
    <form method="post" action={`${BASE}/setup/check-manychat`} class="card">
      <h2>Check the ManyChat key</h2>
      <p class="muted">Reads your page's flows, tags and fields with the stored key; changes nothing.</p>
      <CsrfField token={dash.csrf} />
      <div class="actions">
        <button type="submit">Check</button>
      </div>
    </form>
  </Layout>
);

export interface MessengerPageRow {
  id: string;
  name?: string | undefined;
  tokenSet: boolean;
}

/**
 * The tenant's Messenger pages (issue 31): one row per page (its id, a name for people, its token
 * — write-only, "set" or "not set", never shown), and one empty row to add a page. A new token is
 * checked with Meta before it is sealed.
 */
const MessengerPagesForm: FC<{ dash: DashboardSession; rev: number; pages: MessengerPageRow[]; errors: Errors }> = ({
  dash,
  rev,
  pages,
  errors,
}) => {
  const rows = pages.length < MAX_MESSENGER_PAGES ? [...pages, { id: '', tokenSet: false }] : pages;
  return (
    <form method="post" action={`${BASE}/setup/messenger-pages`} class="card">
      <h2>Messenger pages</h2>
      <p class="muted">
        The Facebook pages this agent answers (at most {MAX_MESSENGER_PAGES}), each with its own page access token.
        Tokens are write-only: leave a token empty to keep the stored one. Clear a page id to remove the page and its
        token. A new token is checked with Meta before it is saved.
      </p>
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="rev" value={String(rev)} />
      {rows.map((p, i) => (
        <fieldset>
          <legend>{p.id ? `Page ${p.id}` : 'Add a page'}</legend>
          <TextField name={`page_id_${i}`} label="Page id" value={p.id} errors={errors} />
          <TextField name={`page_name_${i}`} label="Name (for your team)" value={p.name ?? ''} errors={errors} />
          <TextField
            name={`page_token_${i}`}
            label={`Page access token (${p.tokenSet ? 'set' : 'not set'})`}
            value=""
            type="password"
            errors={errors}
          />
        </fieldset>
      ))}
      <div class="actions">
        <button type="submit">Save pages</button>
      </div>
    </form>
  );
};

const SECRET_LABELS: Record<(typeof WRITE_ONLY_SECRETS)[number], string> = {
  manychatApiKey: 'ManyChat API key',
  messengerAppSecret: 'Messenger app secret',
  messengerPageAccessToken: 'Messenger page access token',
  messengerVerifyToken: 'Messenger verify token',
  notificationUrl: 'Notification URL (a Slack incoming webhook)',
};

export const PreviewPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  lines: DiffLine[];
  changed: boolean;
  /** Set when the change was too large to diff line by line (see configDiff). */
  summary?: DiffSummary | undefined;
  configJson: string;
  rev: number;
  conflict?: string | undefined;
  section?: SetupSection | undefined;
}> = ({ dash, tenantName, lines, changed, summary, configJson, rev, conflict, section }) => (
  <Layout title="Review changes" section="setup" dash={dash} tenantName={tenantName}>
    {conflict ? <Notice kind="error">{conflict}</Notice> : null}
    {summary ? (
      <p>
        The change is too large to show line by line: from line {summary.fromLine.toLocaleString('en-US')},{' '}
        {summary.removed.toLocaleString('en-US')} lines are replaced by {summary.added.toLocaleString('en-US')} lines.
      </p>
    ) : changed ? (
      <p>The configuration is valid. These lines change:</p>
    ) : (
      <Notice kind="info">Nothing changed.</Notice>
    )}
    <pre class="diff" aria-label="Changes">
      {lines.map((l) =>
        l.kind === 'added' ? (
          <ins>{`+ ${l.text}\n`}</ins>
        ) : l.kind === 'removed' ? (
          <del>{`- ${l.text}\n`}</del>
        ) : (
          `  ${l.text}\n`
        ),
      )}
    </pre>
    <form method="post" action={`${BASE}/setup/save`} class="actions">
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="rev" value={String(rev)} />
      <input type="hidden" name="config" value={configJson} />
      {section ? <input type="hidden" name="section" value={section} /> : null}
      {changed && !conflict ? <button type="submit">Save</button> : null}
      <a class="button secondary" href={`${BASE}/setup${section ? `/${section}` : ''}`}>
        Back to setup
      </a>
    </form>
  </Layout>
);
