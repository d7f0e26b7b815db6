import { EnvSchema } from '../../src/env.js';
import { tenantConfigJsonSchema } from '../../core/tenant/config-json-schema.js';
import { ENV_VARIABLE_DOCS } from './env-reference.js';
import {
  MANYCHAT_REQUEST_BODY,
  MANYCHAT_REQUEST_HEADERS,
  MANYCHAT_REQUEST_URL,
  MANYCHAT_RESPONSE_NOTE,
} from './manychat-template.js';

/**
 * The docs' generated sections, each between `<!-- generated:NAME:start (npm run docs) -->` and
 * `<!-- generated:NAME:end -->`: rendered from the env schema, the tenant config's JSON Schema
 * and the ManyChat template file, so the docs say what the code does. Which page holds which
 * section is GENERATED_PAGES; `npm run docs` rewrites them, test/node/docs.test.ts checks them.
 */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The env schema's variables, in its order. */
export function envVariableNames(): string[] {
  return Object.keys(EnvSchema.shape);
}

function envTable(): string {
  const rows = envVariableNames().map((name) => {
    const field = (EnvSchema.shape as Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown } }>)[
      name
    ]!;
    const absent = field.safeParse(undefined);
    const doc = ENV_VARIABLE_DOCS[name];
    const required = doc?.required ?? (absent.success ? 'no' : 'yes');
    const fallback = absent.success && absent.data !== undefined ? `\`${String(absent.data)}\`` : '';
    const kind = doc?.kind === 'var' ? 'var (`wrangler.toml`)' : 'secret';
    return `| \`${name}\` | ${required} | ${kind} | ${fallback} | ${cell(doc?.where ?? '**undocumented** (add it to dev/docs/env-reference.ts)')} |`;
  });
  return [
    '| variable | required | kind | default | what, and where to find it |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

type JsonSchemaNode = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchemaNode[];
  items?: JsonSchemaNode;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
};

function typeOf(node: JsonSchemaNode): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum) return node.enum.map((v) => `\`${String(v)}\``).join(' | ');
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.type === 'array') return `${node.items ? typeOf(node.items) : 'any'}[]`;
  const range =
    node.minimum !== undefined || node.maximum !== undefined ? ` ${node.minimum ?? ''}–${node.maximum ?? ''}` : '';
  return `${Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any')}${range}`;
}

function configTable(): string {
  const schema = tenantConfigJsonSchema() as { properties: Record<string, JsonSchemaNode>; required: string[] };
  const rows = Object.entries(schema.properties).map(([name, node]) => {
    const fallback = node.default !== undefined ? `\`${JSON.stringify(node.default)}\`` : '';
    return `| \`${name}\` | ${cell(typeOf(node))} | ${schema.required.includes(name) ? 'yes' : 'no'} | ${cell(fallback.length > 60 ? '(see schema)' : fallback)} | ${cell(node.description ?? '')} |`;
  });
  return ['| field | type | required | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

function manychatTemplate(): string {
  return [
    `- **URL** (method POST): \`${MANYCHAT_REQUEST_URL}\``,
    '- **Headers**:',
    '',
    '  | header | value | why |',
    '  |---|---|---|',
    ...MANYCHAT_REQUEST_HEADERS.map((h) => `  | \`${h.name}\` | \`${cell(h.value)}\` | ${cell(h.why)} |`),
    '',
    "- **Body** (type it as is; insert each `{{…}}` from the body editor's variable menu):",
    '',
    '  ```json',
    ...MANYCHAT_REQUEST_BODY.split('\n').map((l) => `  ${l}`),
    '  ```',
    '',
    `- **Response**: ${MANYCHAT_RESPONSE_NOTE}`,
  ].join('\n');
}

export function renderSections(): Record<string, string> {
  return { env: envTable(), 'config-reference': configTable(), 'manychat-template': manychatTemplate() };
}

/** The pages (relative to the repository) and the generated sections each holds. */
export const GENERATED_PAGES: Record<string, string[]> = {
  'docs/deploy.md': ['env'],
  'docs/config-reference.md': ['config-reference'],
  'docs/manychat-setup.md': ['manychat-template'],
};

/** The dashboard's bundled copy of the ManyChat walkthrough. */
export const MANYCHAT_GUIDE_MODULE = 'src/dashboard/setup/manychat-guide.generated.ts';

/** A page with its generated sections (`names`, default every one) replaced; throws naming a section whose markers are missing. */
export function applySections(
  page: string,
  names: string[] = Object.keys(renderSections()),
  sections = renderSections(),
): string {
  let out = page;
  for (const name of names) {
    const body = sections[name];
    if (body === undefined) throw new Error(`no generated section "${name}"`);
    const start = `<!-- generated:${name}:start (npm run docs) -->`;
    const end = `<!-- generated:${name}:end -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`the page lacks the markers of the generated section "${name}"`);
    out = `${out.slice(0, from + start.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

/** The ManyChat walkthrough (docs/manychat-setup.md) as a module the Worker bundles: the dashboard serves it at /dashboard/setup/manychat, without the generated-section markers. */
export function manychatGuideModule(page: string): string {
  const text = page.replace(/\n?<!-- generated:[a-z-]+:(start \(npm run docs\)|end) -->/g, '');
  return `// Generated from docs/manychat-setup.md by \`npm run docs\`; edit that page.\nexport const MANYCHAT_SETUP_GUIDE = ${JSON.stringify(text)};\n`;
}
