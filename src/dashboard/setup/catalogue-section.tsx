import type { FC } from 'hono/jsx';
import { BASE } from '../dashboard-context.js';
import { CheckField, Section, SelectField, TextField, type Errors } from './form-controls.js';

type Row = Record<string, unknown>;
const list = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const joined = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');

const NS_HINT =
  'Looks like content20261101000000_000101: the part of the flow\'s address in ManyChat that starts with "content". A pasted address is cut down to it.';

export function catalogueFieldNames(values: Row): string[] {
  const out = ['flows', 'contents', 'tags', 'fields', 'faq'];
  const add = (section: string, count: number, fields: string[]) => {
    for (let i = 0; i <= count; i++) for (const f of fields) out.push(`${section}.${i}.${f}`);
  };
  add('flows', list(values.flows).length, ['name', 'ns', 'description', 'keywords']);
  add('contents', list(values.contents).length, ['name', 'description', 'text', 'keywords']);
  add('tags', list(values.tags).length, ['name', 'description']);
  add('fields', list(values.fields).length, ['name', 'label', 'type', 'description', 'choices']);
  add('faq', list(values.faq).length, ['id', 'question', 'answer']);
  return out;
}

const Remove: FC<{ name: string; what: string; isNew: boolean; errors: Errors }> = ({ name, what, isNew, errors }) =>
  isNew ? null : <CheckField name={`${name}.remove`} label={`Remove ${what}`} checked={false} errors={errors} />;

export const CatalogueSection: FC<{ values: Row; errors: Errors }> = ({ values, errors }) => {
  const flows = list(values.flows);
  const contents = list(values.contents);
  const tags = list(values.tags);
  const fields = list(values.fields);
  const faq = list(values.faq);
  return (
    <>
      <p>
        <a href={`${BASE}/setup/import`}>Import from ManyChat</a>: pick the flows, tags and custom fields your ManyChat
        page already has, instead of typing them.
      </p>
      <Section name="flows" legend="Flows" errors={errors}>
        {[...flows, {}].map((f, i) => (
          <div
            class="row-grid"
            role="group"
            aria-label={i < flows.length ? `Flow ${String(f.name ?? i + 1)}` : 'Add a flow'}
          >
            <TextField
              name={`flows.${i}.name`}
              label={i < flows.length ? 'Name' : 'New flow name'}
              value={f.name}
              errors={errors}
            />
            <TextField name={`flows.${i}.ns`} label="ManyChat flow ns" value={f.ns} errors={errors} hint={NS_HINT} />
            <TextField
              name={`flows.${i}.description`}
              label="Description shown to the model"
              value={f.description}
              errors={errors}
            />
            <TextField
              name={`flows.${i}.keywords`}
              label="Keywords (comma-separated)"
              value={joined(f.keywords)}
              errors={errors}
            />
            <Remove
              name={`flows.${i}`}
              what={`flow ${String(f.name ?? '')}`}
              isNew={i >= flows.length}
              errors={errors}
            />
          </div>
        ))}
      </Section>
      <Section
        name="contents"
        legend="Prepared messages (a send_content tool sends one by name; the model never writes them)"
        errors={errors}
      >
        {[...contents, {}].map((m, i) => (
          <div
            class="row-grid"
            role="group"
            aria-label={i < contents.length ? `Message ${String(m.name ?? i + 1)}` : 'Add a prepared message'}
          >
            <TextField
              name={`contents.${i}.name`}
              label={i < contents.length ? 'Name' : 'New message name'}
              value={m.name}
              errors={errors}
            />
            <TextField
              name={`contents.${i}.description`}
              label="Description shown to the model"
              value={m.description}
              errors={errors}
            />
            <TextField
              name={`contents.${i}.text`}
              label="Text sent as it is (up to 2,000 characters)"
              value={m.text}
              errors={errors}
              textarea
            />
            <TextField
              name={`contents.${i}.keywords`}
              label="Keywords (comma-separated)"
              value={joined(m.keywords)}
              errors={errors}
            />
            <Remove
              name={`contents.${i}`}
              what={`message ${String(m.name ?? '')}`}
              isNew={i >= contents.length}
              errors={errors}
            />
          </div>
        ))}
      </Section>
      <Section name="tags" legend="Tags" errors={errors}>
        {[...tags, {}].map((t, i) => (
          <div
            class="row-grid"
            role="group"
            aria-label={i < tags.length ? `Tag ${String(t.name ?? i + 1)}` : 'Add a tag'}
          >
            <TextField
              name={`tags.${i}.name`}
              label={i < tags.length ? 'Tag' : 'New tag'}
              value={t.name}
              errors={errors}
            />
            <TextField name={`tags.${i}.description`} label="Description" value={t.description} errors={errors} />
            <Remove name={`tags.${i}`} what={`tag ${String(t.name ?? '')}`} isNew={i >= tags.length} errors={errors} />
          </div>
        ))}
      </Section>
      <Section name="fields" legend="Custom fields" errors={errors}>
        {[...fields, {}].map((f, i) => (
          <div
            class="row-grid"
            role="group"
            aria-label={i < fields.length ? `Field ${String(f.name ?? i + 1)}` : 'Add a field'}
          >
            <TextField
              name={`fields.${i}.name`}
              label={i < fields.length ? 'Field' : 'New field'}
              value={f.name}
              errors={errors}
            />
            <TextField
              name={`fields.${i}.label`}
              label="Label (how contacts and approvers read it; empty: the name)"
              value={f.label}
              errors={errors}
            />
            <SelectField
              name={`fields.${i}.type`}
              label="Type"
              value={f.type ?? 'text'}
              options={[
                ['text', 'text'],
                ['number', 'number'],
                ['boolean', 'boolean'],
                ['date', 'date'],
              ]}
              errors={errors}
            />
            <TextField name={`fields.${i}.description`} label="Description" value={f.description} errors={errors} />
            <TextField
              name={`fields.${i}.choices`}
              label="Choices (comma-separated; empty: free value)"
              value={joined(f.choices)}
              errors={errors}
            />
            <Remove
              name={`fields.${i}`}
              what={`field ${String(f.name ?? '')}`}
              isNew={i >= fields.length}
              errors={errors}
            />
          </div>
        ))}
      </Section>
      <Section name="faq" legend="FAQ entries" errors={errors}>
        {[...faq, {}].map((q, i) => (
          <div
            class="row-grid"
            role="group"
            aria-label={i < faq.length ? `FAQ ${String(q.id ?? i + 1)}` : 'Add a FAQ entry'}
          >
            <TextField
              name={`faq.${i}.id`}
              label={i < faq.length ? 'Id' : 'New entry id'}
              value={q.id}
              errors={errors}
            />
            <TextField name={`faq.${i}.question`} label="Question" value={q.question} errors={errors} />
            <TextField name={`faq.${i}.answer`} label="Answer" value={q.answer} errors={errors} textarea />
            <Remove name={`faq.${i}`} what={`entry ${String(q.id ?? '')}`} isNew={i >= faq.length} errors={errors} />
          </div>
        ))}
      </Section>
    </>
  );
};
