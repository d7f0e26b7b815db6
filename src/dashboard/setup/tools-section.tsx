import type { FC } from 'hono/jsx';
import { STAGEABLE_KIND_NAMES } from '../../../core/actions/index.js';
import { READ_TOOL_KINDS } from '../../../core/tenant/tenant-config.js';
import { CheckField, Section, SelectField, TextField, type Errors } from './form-controls.js';

type Row = Record<string, unknown>;
const list = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
const joined = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');

/** What each kind does, in the words of the select. */
const KIND_WORDS: Record<string, string> = {
  send_flow: 'send a ManyChat flow',
  send_content: 'send a prepared message',
  add_tag: 'add a tag',
  remove_tag: 'remove a tag',
  set_field: 'set a custom field',
  live_chat: 'hand the contact to live chat',
  notify_webhook: 'notify your webhook',
  lookup_contact: "read the contact's name and fields",
  search_faq: 'search the FAQ',
};
export const TOOL_KINDS: readonly string[] = [...STAGEABLE_KIND_NAMES, ...READ_TOOL_KINDS];

/**
 * The manifest's own rules (core/tenant/manifest.ts), said next to the field they govern: the
 * person choosing a setting reads what it does and where it is allowed before saving, and the
 * save refuses a combination the rules forbid, naming the tool.
 */
export const TOOL_RULES = {
  kind: 'What the tool does. lookup_contact and search_faq only read; every other kind stages an action, performed only after the turn passes its guardrails.',
  effect:
    "read: runs and returns data (read kinds only). write: stages an action. destructive (removes or overwrites a contact's data): always waits for your approval. Not declared: the tool is not offered to the model.",
  confirm:
    'Write tools only. once (the default): the contact confirms with a button before it is performed. never: performed as soon as the turn passes.',
  approval: "Write tools only, and not with confirm: waits for a teammate's approval that pins the exact call.",
  guidance: "Added to the model's instructions while the tool is offered (at most 1,000 characters).",
  pinned: 'The tool shortlist never drops it.',
  answers_directly:
    'Its output is the reply: a read tool, or a write tool with confirm never; never a destructive one. Only search_faq has output a contact can read.',
  undo: 'Destructive tools only: the tool that reverses it, which must be a write tool with confirm never.',
  resources:
    'Write and destructive tools only: what it may act on, e.g. flow:brochure, tag:vip, field:plan. Empty: every configured one of its kind. A gate binds to these: a resource a gated tool acts on is as gated whichever tool stages it.',
} as const;

/** Row order: the tenant's tools, then declarations whose name is no tool (shown, so they can be fixed or removed). */
export function toolRows(values: Row): { name: string; instance?: Row }[] {
  const rows: { name: string; instance?: Row }[] = list(values.tools).map((t) => ({
    name: String(t.name ?? ''),
    instance: t,
  }));
  for (const key of Object.keys(obj(values.manifest))) if (!rows.some((r) => r.name === key)) rows.push({ name: key });
  return rows;
}

export function toolFieldNames(values: Row): string[] {
  const count = toolRows(values).length;
  const out = ['tools', 'toolOrder'];
  for (let i = 0; i <= count; i++)
    for (const f of [
      'name',
      'kind',
      'description',
      'effect',
      'confirm',
      'approval',
      'guidance',
      'pinned',
      'answers_directly',
      'undo',
      'resources',
    ])
      out.push(`tools.${i}.${f}`);
  return out;
}

const ToolRow: FC<{
  i: number;
  name: string;
  instance?: Row | undefined;
  decl: Row;
  isNew: boolean;
  errors: Errors;
}> = ({ i, name, instance, decl, isNew, errors }) => {
  const label = isNew ? 'New tool' : name;
  const declarationOnly = !isNew && !instance;
  return (
    <div class="row-grid tool-row" role="group" aria-label={isNew ? 'Add a tool' : `Tool ${name}`}>
      {declarationOnly ? (
        <>
          <input type="hidden" name={`tools.${i}.declarationOnly`} value="yes" />
          <input type="hidden" name={`tools.${i}.name`} value={name} />
          <p class="wide">
            <strong>{name}</strong>: declared, but no tool has this name, so it declares nothing. Rename the tool it was
            meant for, or remove this declaration.
          </p>
        </>
      ) : (
        <>
          <TextField
            name={`tools.${i}.name`}
            label={isNew ? 'New tool name' : 'Name'}
            value={instance?.name ?? ''}
            errors={errors}
            hint="lower-case letters, digits and _; the model calls the tool by it"
          />
          <SelectField
            name={`tools.${i}.kind`}
            label={`${label}: kind`}
            value={instance?.kind ?? ''}
            options={[
              ['', isNew ? 'choose a kind' : 'none'],
              ...TOOL_KINDS.map((k) => [k, `${k} — ${KIND_WORDS[k] ?? k}`] as const),
            ]}
            errors={errors}
            hint={TOOL_RULES.kind}
          />
          <TextField
            name={`tools.${i}.description`}
            label={`${label}: description shown to the model`}
            value={instance?.description ?? ''}
            errors={errors}
            textarea
          />
        </>
      )}
      <SelectField
        name={`tools.${i}.effect`}
        label={`${label}: effect`}
        value={decl.effect ?? ''}
        options={[
          ['', 'not declared (not offered)'],
          ['read', 'read'],
          ['write', 'write'],
          ['destructive', 'destructive'],
        ]}
        errors={errors}
        hint={TOOL_RULES.effect}
      />
      <SelectField
        name={`tools.${i}.confirm`}
        label={`${label}: confirm`}
        value={decl.confirm ?? ''}
        options={[
          ['', 'default (once, unless approval)'],
          ['once', 'once'],
          ['never', 'never'],
        ]}
        errors={errors}
        hint={TOOL_RULES.confirm}
      />
      <CheckField
        name={`tools.${i}.approval`}
        label={`${label}: needs approval (pinned)`}
        checked={decl.approval === 'pinned'}
        errors={errors}
        hint={TOOL_RULES.approval}
      />
      <TextField
        name={`tools.${i}.guidance`}
        label={`${label}: guidance`}
        value={decl.guidance}
        errors={errors}
        hint={TOOL_RULES.guidance}
        textarea
      />
      <CheckField
        name={`tools.${i}.pinned`}
        label={`${label}: pinned`}
        checked={decl.pinned === true}
        errors={errors}
        hint={TOOL_RULES.pinned}
      />
      <CheckField
        name={`tools.${i}.answers_directly`}
        label={`${label}: answers directly`}
        checked={decl.answers_directly === true}
        errors={errors}
        hint={TOOL_RULES.answers_directly}
      />
      <TextField
        name={`tools.${i}.undo`}
        label={`${label}: undo tool`}
        value={decl.undo}
        errors={errors}
        hint={TOOL_RULES.undo}
      />
      <TextField
        name={`tools.${i}.resources`}
        label={`${label}: resources (comma-separated)`}
        value={joined(decl.resources)}
        errors={errors}
        hint={TOOL_RULES.resources}
      />
      {isNew ? null : (
        <CheckField name={`tools.${i}.remove`} label={`Remove ${name}`} checked={false} errors={errors} />
      )}
    </div>
  );
};

export const ToolsSection: FC<{ values: Row; errors: Errors }> = ({ values, errors }) => {
  const manifest = obj(values.manifest);
  const rows = toolRows(values);
  return (
    <>
      <Section name="tools" legend="Tools" errors={errors}>
        <p class="muted">
          One row a tool: what it does (its kind) and, from the manifest, what its actions wait for. A tool is offered
          to the model only once its effect is declared.
        </p>
        {rows.map((r, i) => (
          <ToolRow
            i={i}
            name={r.name}
            instance={r.instance}
            decl={obj(manifest[r.name])}
            isNew={false}
            errors={errors}
          />
        ))}
        <ToolRow i={rows.length} name="" decl={{}} isNew={true} errors={errors} />
      </Section>
      <Section name="order-section" legend="Tool order" errors={errors}>
        <TextField
          name="toolOrder"
          label="Tool order (one tool a line; include <unlisted-tools> once; empty: alphabetical)"
          value={Array.isArray(values.toolOrder) ? values.toolOrder.join('\n') : (values.toolOrder ?? '')}
          errors={errors}
          textarea
        />
      </Section>
    </>
  );
};
