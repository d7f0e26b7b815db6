import type { FC } from 'hono/jsx';
import { TENANT_LOCALES } from '../../../core/tenant/tenant-config.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import type { DiffLine } from './config-diff.js';
import { FORM_LEVEL } from './field-errors.js';
import { CheckField, Section, SelectField, TextField, type Errors } from './form-controls.js';
import { guardrailsJson } from './form-to-config.js';
import { WRITE_ONLY_SECRETS } from './save-config.js';

type Values = Record<string, unknown>;
type Row = Record<string, unknown>;
const list = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
const joined = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');

/** Tool names the manifest section shows, in row order: the tenant's tools, then declarations for names that are not tools. */
export function manifestRows(values: Values): string[] {
  const names = list(values.tools).map((t) => String(t.name ?? ''));
  for (const key of Object.keys(obj(values.manifest))) if (!names.includes(key)) names.push(key);
  return names.filter(Boolean);
}

/** Every field name the form renders for these values: where a problem can be shown. */
export function setupFieldNames(values: Values): Set<string> {
  const names = new Set(['displayName', 'persona', 'modelId', 'locale', 'deadlineMs', 'holdingReply', 'fallbackReply', 'flows', 'contents', 'tags', 'fields', 'faq', 'tools', 'manifest', 'toolOrder', 'thresholds.minConfidence', 'thresholds.guardrailTimeoutMs', 'guardrails', 'guardrails.content.denyPhrases', 'guardrails.content.blockCardNumbers', 'handoff.tag', 'handoff.reply', 'handoff.silenceMinutes']);
  const add = (section: string, count: number, fields: string[]) => {
    for (let i = 0; i <= count; i++) for (const f of fields) names.add(`${section}.${i}.${f}`);
  };
  add('flows', list(values.flows).length, ['name', 'ns', 'description', 'keywords']);
  add('contents', list(values.contents).length, ['name', 'description', 'text', 'keywords']);
  add('tags', list(values.tags).length, ['name', 'description']);
  add('fields', list(values.fields).length, ['name', 'type', 'description', 'choices']);
  add('faq', list(values.faq).length, ['id', 'question', 'answer']);
  add('manifest', manifestRows(values).length - 1, ['effect', 'confirm', 'approval', 'guidance', 'pinned', 'answers_directly', 'undo', 'resources']);
  return names;
}

const RowActions: FC<{ name: string; isNew: boolean; errors: Errors }> = ({ name, isNew, errors }) => (isNew ? null : <CheckField name={`${name}.remove`} label="Remove" checked={false} errors={errors} />);

export const SetupPage: FC<{ dash: DashboardSession; tenantName: string; values: Values; rev: number; errors: Errors; notice?: { kind: 'ok' | 'error' | 'info'; text: string } | undefined; secretsSet: Record<string, boolean> }> = ({ dash, tenantName, values, rev, errors, notice, secretsSet }) => {
  const flows = list(values.flows);
  const contents = list(values.contents);
  const tags = list(values.tags);
  const fields = list(values.fields);
  const faq = list(values.faq);
  const manifest = obj(values.manifest);
  const thresholds = obj(values.thresholds);
  const guardrails = obj(values.guardrails);
  const content = obj(guardrails.content);
  const handoff = obj(values.handoff);
  const formErrors = errors.get(FORM_LEVEL) ?? [];
  const problemCount = [...errors.values()].reduce((n, l) => n + l.length, 0);
  return (
    <Layout title="Setup" section="setup" dash={dash} tenantName={tenantName}>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <p>
        <a href={`${BASE}/setup/manychat`}>Connect ManyChat: the request template, the response mapping and your webhook URL</a>
      </p>
      {problemCount ? <Notice kind="error">{`Not saved: ${problemCount} problem${problemCount > 1 ? 's' : ''} (shown next to ${problemCount > 1 ? 'their fields' : 'its field'}).`}</Notice> : null}
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
        <Section name="persona-section" legend="Persona and model" errors={errors}>
          <TextField name="displayName" label="Display name" value={values.displayName} errors={errors} />
          <TextField name="persona" label="Persona (what the model is told it is)" value={values.persona} errors={errors} textarea />
          <TextField name="modelId" label="Model id" value={values.modelId} errors={errors} hint="The hosted model; the offline rule model ignores it." />
          <SelectField name="locale" label="Language of the runtime's own words" value={values.locale} options={TENANT_LOCALES.map((l) => [l, l] as const)} errors={errors} />
          <TextField name="fallbackReply" label="Fallback reply (vetoed or failed turns)" value={values.fallbackReply} errors={errors} textarea />
        </Section>
        <Section name="deadline-section" legend="Deadline and holding message" errors={errors}>
          <TextField name="deadlineMs" label="Deadline (ms, 500–9500)" value={values.deadlineMs} errors={errors} type="number" />
          <TextField name="holdingReply" label="Holding message (sent at the deadline; empty: nothing)" value={values.holdingReply} errors={errors} textarea />
        </Section>
        <Section name="flows" legend="Flows" errors={errors}>
          {[...flows, {}].map((f, i) => (
            <div class="row-grid" role="group" aria-label={i < flows.length ? `Flow ${String(f.name ?? i + 1)}` : 'Add a flow'}>
              <TextField name={`flows.${i}.name`} label={i < flows.length ? 'Name' : 'New flow name'} value={f.name} errors={errors} />
              <TextField name={`flows.${i}.ns`} label="ManyChat flow ns" value={f.ns} errors={errors} />
              <TextField name={`flows.${i}.description`} label="Description shown to the model" value={f.description} errors={errors} />
              <TextField name={`flows.${i}.keywords`} label="Keywords (comma-separated)" value={joined(f.keywords)} errors={errors} />
              <RowActions name={`flows.${i}`} isNew={i >= flows.length} errors={errors} />
            </div>
          ))}
        </Section>
        <Section name="contents" legend="Prepared messages (a send_content tool sends one by name; the model never writes them)" errors={errors}>
          {[...contents, {}].map((m, i) => (
            <div class="row-grid" role="group" aria-label={i < contents.length ? `Message ${String(m.name ?? i + 1)}` : 'Add a prepared message'}>
              <TextField name={`contents.${i}.name`} label={i < contents.length ? 'Name' : 'New message name'} value={m.name} errors={errors} />
              <TextField name={`contents.${i}.description`} label="Description shown to the model" value={m.description} errors={errors} />
              <TextField name={`contents.${i}.text`} label="Text sent as it is (up to 2,000 characters)" value={m.text} errors={errors} textarea />
              <TextField name={`contents.${i}.keywords`} label="Keywords (comma-separated)" value={joined(m.keywords)} errors={errors} />
              <RowActions name={`contents.${i}`} isNew={i >= contents.length} errors={errors} />
            </div>
          ))}
        </Section>
        <Section name="tags" legend="Tags" errors={errors}>
          {[...tags, {}].map((t, i) => (
            <div class="row-grid" role="group" aria-label={i < tags.length ? `Tag ${String(t.name ?? i + 1)}` : 'Add a tag'}>
              <TextField name={`tags.${i}.name`} label={i < tags.length ? 'Tag' : 'New tag'} value={t.name} errors={errors} />
              <TextField name={`tags.${i}.description`} label="Description" value={t.description} errors={errors} />
              <RowActions name={`tags.${i}`} isNew={i >= tags.length} errors={errors} />
            </div>
          ))}
        </Section>
        <Section name="fields" legend="Custom fields" errors={errors}>
          {[...fields, {}].map((f, i) => (
            <div class="row-grid" role="group" aria-label={i < fields.length ? `Field ${String(f.name ?? i + 1)}` : 'Add a field'}>
              <TextField name={`fields.${i}.name`} label={i < fields.length ? 'Field' : 'New field'} value={f.name} errors={errors} />
              <SelectField name={`fields.${i}.type`} label="Type" value={f.type ?? 'text'} options={[['text', 'text'], ['number', 'number'], ['boolean', 'boolean'], ['date', 'date']]} errors={errors} />
              <TextField name={`fields.${i}.description`} label="Description" value={f.description} errors={errors} />
              <TextField name={`fields.${i}.choices`} label="Choices (comma-separated; empty: free value)" value={joined(f.choices)} errors={errors} />
              <RowActions name={`fields.${i}`} isNew={i >= fields.length} errors={errors} />
            </div>
          ))}
        </Section>
        <Section name="faq" legend="FAQ entries" errors={errors}>
          {[...faq, {}].map((q, i) => (
            <div class="row-grid" role="group" aria-label={i < faq.length ? `FAQ ${String(q.id ?? i + 1)}` : 'Add a FAQ entry'}>
              <TextField name={`faq.${i}.id`} label={i < faq.length ? 'Id' : 'New entry id'} value={q.id} errors={errors} />
              <TextField name={`faq.${i}.question`} label="Question" value={q.question} errors={errors} />
              <TextField name={`faq.${i}.answer`} label="Answer" value={q.answer} errors={errors} textarea />
              <RowActions name={`faq.${i}`} isNew={i >= faq.length} errors={errors} />
            </div>
          ))}
        </Section>
        <Section name="manifest" legend="Tool manifest" errors={errors}>
          <p class="muted">One declaration per tool. A tool with no effect chosen is not declared (and so not offered to the model).</p>
          {manifestRows(values).map((tool, i) => {
            const d = obj(manifest[tool]);
            return (
              <div class="row-grid" role="group" aria-label={`Tool ${tool}`}>
                <input type="hidden" name={`manifest.${i}.tool`} value={tool} />
                <p>
                  <strong>{tool}</strong>
                </p>
                <SelectField name={`manifest.${i}.effect`} label={`${tool}: effect`} value={d.effect ?? ''} options={[['', 'not declared'], ['read', 'read'], ['write', 'write'], ['destructive', 'destructive']]} errors={errors} />
                <SelectField name={`manifest.${i}.confirm`} label={`${tool}: confirm`} value={d.confirm ?? ''} options={[['', 'default'], ['once', 'once'], ['never', 'never']]} errors={errors} />
                <CheckField name={`manifest.${i}.approval`} label={`${tool}: needs approval (pinned)`} checked={d.approval === 'pinned'} errors={errors} />
                <TextField name={`manifest.${i}.guidance`} label={`${tool}: guidance`} value={d.guidance} errors={errors} />
                <CheckField name={`manifest.${i}.pinned`} label={`${tool}: pinned`} checked={d.pinned === true} errors={errors} />
                <CheckField name={`manifest.${i}.answers_directly`} label={`${tool}: answers directly`} checked={d.answers_directly === true} errors={errors} />
                <TextField name={`manifest.${i}.undo`} label={`${tool}: undo tool`} value={d.undo} errors={errors} />
                <TextField name={`manifest.${i}.resources`} label={`${tool}: resources (comma-separated, e.g. flow:brochure)`} value={joined(d.resources)} errors={errors} />
              </div>
            );
          })}
        </Section>
        <Section name="order-section" legend="Tool order" errors={errors}>
          <TextField name="toolOrder" label="Tool order (one tool a line; include <unlisted-tools> once; empty: alphabetical)" value={Array.isArray(values.toolOrder) ? values.toolOrder.join('\n') : (values.toolOrder ?? '')} errors={errors} textarea />
        </Section>
        <Section name="guardrail-section" legend="Guardrails" errors={errors}>
          <TextField name="thresholds.minConfidence" label="Minimum confidence (0–1; below it the turn escalates)" value={thresholds.minConfidence} errors={errors} />
          <TextField name="thresholds.guardrailTimeoutMs" label="Guardrail time budget (ms)" value={thresholds.guardrailTimeoutMs} errors={errors} type="number" />
          <TextField name="guardrails.content.denyPhrases" label="Deny-list: phrases a reply must never contain (one a line)" value={Array.isArray(content.denyPhrases) ? content.denyPhrases.join('\n') : ''} errors={errors} textarea />
          <CheckField name="guardrails.content.blockCardNumbers" label="Block payment card numbers" checked={content.blockCardNumbers !== false} errors={errors} />
          <TextField name="guardrails" label="Other guardrail settings (JSON: PII patterns, caps, rate limits, leak thresholds)" value={guardrailsJson(values.guardrails)} errors={errors} textarea />
        </Section>
        <Section name="handoff-section" legend="Handoff" errors={errors}>
          <SelectField name="handoff.tag" label="Tag added on handoff" value={handoff.tag ?? ''} options={[['', 'none'], ...[...new Set([...tags.map((t) => String(t.name)), ...(handoff.tag ? [String(handoff.tag)] : [])])].map((n) => [n, n] as const)]} errors={errors} />
          <TextField name="handoff.reply" label="Reply on handoff" value={handoff.reply} errors={errors} textarea />
          <TextField name="handoff.silenceMinutes" label="Minutes the agent stays silent after a handoff" value={handoff.silenceMinutes} errors={errors} type="number" />
        </Section>
        <div class="actions">
          <button type="submit">Review changes</button>
        </div>
      </form>
      <form method="post" action={`${BASE}/setup/secrets`} class="card">
        <h2>Secrets (write-only)</h2>
        <p class="muted">Stored encrypted; never shown again. Leave a field empty to keep its current value.</p>
        <CsrfField token={dash.csrf} />
        <input type="hidden" name="rev" value={String(rev)} />
        {WRITE_ONLY_SECRETS.map((name) => (
          <div>
            <label for={`secret-${name}`}>{`${SECRET_LABELS[name]} (${secretsSet[name] ? 'set' : 'not set'})`}</label>
            <input id={`secret-${name}`} name={name} type="password" autocomplete="new-password" value="" />
          </div>
        ))}
        <div class="actions">
          <button type="submit">Replace secrets</button>
        </div>
      </form>
    </Layout>
  );
};

const SECRET_LABELS: Record<(typeof WRITE_ONLY_SECRETS)[number], string> = {
  manychatApiKey: 'ManyChat API key',
  messengerAppSecret: 'Messenger app secret',
  messengerPageAccessToken: 'Messenger page access token',
  messengerVerifyToken: 'Messenger verify token',
};

export const PreviewPage: FC<{ dash: DashboardSession; tenantName: string; lines: DiffLine[]; changed: boolean; configJson: string; rev: number; conflict?: string | undefined }> = ({ dash, tenantName, lines, changed, configJson, rev, conflict }) => (
  <Layout title="Review changes" section="setup" dash={dash} tenantName={tenantName}>
    {conflict ? <Notice kind="error">{conflict}</Notice> : null}
    {changed ? <p>The configuration is valid. These lines change:</p> : <Notice kind="info">Nothing changed.</Notice>}
    <pre class="diff" aria-label="Changes">
      {lines.map((l) => (l.kind === 'added' ? <ins>{`+ ${l.text}\n`}</ins> : l.kind === 'removed' ? <del>{`- ${l.text}\n`}</del> : `  ${l.text}\n`))}
    </pre>
    <form method="post" action={`${BASE}/setup/save`} class="actions">
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="rev" value={String(rev)} />
      <input type="hidden" name="config" value={configJson} />
      {changed && !conflict ? <button type="submit">Save</button> : null}
      <a class="button secondary" href={`${BASE}/setup`}>
        Back to setup
      </a>
    </form>
  </Layout>
);
