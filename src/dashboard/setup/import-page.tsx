import type { FC } from 'hono/jsx';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import { configFieldType, configName, type PageCatalogue } from './manychat-page-api.js';
import { SectionNav } from './setup-page.js';

/**
 * Setup → Catalogue → Import from ManyChat: the page's flows, tags and custom fields, each with a
 * box to tick; what the config already has is shown as such. Ticked items go to the same diff
 * review as any other change, then are saved.
 */
export const ImportPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  rev: number;
  config: TenantConfig;
  catalogue?: PageCatalogue | undefined;
  problem?: string | undefined;
}> = ({ dash, tenantName, rev, config, catalogue, problem }) => {
  const haveNs = new Set(config.flows.map((f) => f.ns));
  const haveTags = new Set(config.tags.map((t) => t.name));
  const haveFields = new Set(config.fields.map((f) => f.name));
  return (
    <Layout title="Import from ManyChat" section="setup" dash={dash} tenantName={tenantName}>
      <SectionNav current="catalogue" />
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {catalogue ? (
        <form method="post" action={`${BASE}/setup/import`}>
          <CsrfField token={dash.csrf} />
          <input type="hidden" name="rev" value={String(rev)} />
          <p>Tick what the agent may use. Nothing is saved until you review the changes.</p>
          <fieldset>
            <legend>Flows</legend>
            {catalogue.flows.length === 0 ? <p>Your page has no flows.</p> : null}
            {catalogue.flows.map((f, i) => (
              <div>
                <input type="hidden" name={`flow.${i}.ns`} value={f.ns} />
                <input type="hidden" name={`flow.${i}.title`} value={f.name} />
                <label class="check" for={`import-flow-${i}`}>
                  <input
                    id={`import-flow-${i}`}
                    type="checkbox"
                    name={`flow.${i}.pick`}
                    value="yes"
                    disabled={haveNs.has(f.ns)}
                  />{' '}
                  {f.name} <code>{f.ns}</code>
                  {haveNs.has(f.ns) ? ' (already in your catalogue)' : ''}
                </label>
              </div>
            ))}
          </fieldset>
          <fieldset>
            <legend>Tags</legend>
            {catalogue.tags.length === 0 ? <p>Your page has no tags.</p> : null}
            {catalogue.tags.map((t, i) => (
              <div>
                <input type="hidden" name={`tag.${i}.name`} value={t.name} />
                <label class="check" for={`import-tag-${i}`}>
                  <input
                    id={`import-tag-${i}`}
                    type="checkbox"
                    name={`tag.${i}.pick`}
                    value="yes"
                    disabled={haveTags.has(t.name)}
                  />{' '}
                  {t.name}
                  {haveTags.has(t.name) ? ' (already in your catalogue)' : ''}
                </label>
              </div>
            ))}
          </fieldset>
          <fieldset>
            <legend>Custom fields</legend>
            {catalogue.fields.length === 0 ? <p>Your page has no custom fields.</p> : null}
            {catalogue.fields.map((f, i) => {
              const type = configFieldType(f.type);
              return (
                <div>
                  <input type="hidden" name={`field.${i}.name`} value={f.name} />
                  <input type="hidden" name={`field.${i}.type`} value={f.type} />
                  <input type="hidden" name={`field.${i}.description`} value={f.description} />
                  <label class="check" for={`import-field-${i}`}>
                    <input
                      id={`import-field-${i}`}
                      type="checkbox"
                      name={`field.${i}.pick`}
                      value="yes"
                      disabled={haveFields.has(f.name) || !type}
                    />{' '}
                    {f.name} ({f.type})
                    {haveFields.has(f.name)
                      ? ' (already in your catalogue)'
                      : !type
                        ? ' (this type cannot be set by the agent)'
                        : ''}
                  </label>
                </div>
              );
            })}
          </fieldset>
          <div class="actions">
            <button type="submit">Review changes</button>
            <a class="button secondary" href={`${BASE}/setup/catalogue`}>
              Back to the catalogue
            </a>
          </div>
        </form>
      ) : (
        <p>
          <a href={`${BASE}/setup/secrets`}>Set or check your ManyChat API key</a>, then come back.
        </p>
      )}
    </Layout>
  );
};

type Form = Record<string, unknown>;
const str = (form: Form, k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');

/**
 * The config with the ticked items added. Only what the page really has is added: the form's
 * hidden values are checked against a fresh read of the page (a forged ns is not imported).
 */
export function importedConfig(config: TenantConfig, form: Form, catalogue: PageCatalogue): Record<string, unknown> {
  const flows: Record<string, unknown>[] = [...config.flows];
  const tags: Record<string, unknown>[] = [...config.tags];
  const fields: Record<string, unknown>[] = [...config.fields];
  const taken = new Set(config.flows.map((f) => f.name));
  for (let i = 0; i < 500 && form[`flow.${i}.ns`] !== undefined; i++) {
    if (str(form, `flow.${i}.pick`) !== 'yes') continue;
    const real = catalogue.flows.find((f) => f.ns === str(form, `flow.${i}.ns`));
    if (!real || config.flows.some((f) => f.ns === real.ns)) continue;
    const name = configName(real.name, taken);
    taken.add(name);
    flows.push({ name, ns: real.ns, description: real.name, keywords: [] });
  }
  for (let i = 0; i < 500 && form[`tag.${i}.name`] !== undefined; i++) {
    if (str(form, `tag.${i}.pick`) !== 'yes') continue;
    const real = catalogue.tags.find((t) => t.name === str(form, `tag.${i}.name`));
    if (real && !tags.some((t) => t.name === real.name)) tags.push({ name: real.name, description: '' });
  }
  for (let i = 0; i < 500 && form[`field.${i}.name`] !== undefined; i++) {
    if (str(form, `field.${i}.pick`) !== 'yes') continue;
    const real = catalogue.fields.find((f) => f.name === str(form, `field.${i}.name`));
    const type = real ? configFieldType(real.type) : null;
    if (real && type && !fields.some((f) => f.name === real.name))
      fields.push({ name: real.name, type, description: real.description });
  }
  return { ...structuredClone(config), flows, tags, fields };
}
