import { fc } from '@fast-check/vitest';
import { edgeString, wellFormedJson, wellFormedString, withLoneSurrogate } from './unicode.js';

/**
 * Random mutations of a valid tenant config: up to three edits at paths of the config (delete,
 * replace with any JSON, with a boundary value, with a lone surrogate; duplicate or empty an
 * array; add an unknown key), or — rarely — a body that is not a config at all. The product's
 * schema is the judge; the test only needs the body.
 */
type Path = (string | number)[];
type Json = Record<string, unknown>;

export type ConfigEdit =
  | { op: 'delete'; at: number }
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'duplicate-item' | 'empty-array'; at: number }
  | { op: 'add-key'; at: number; key: string; value: unknown };

export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const here = prefix.length ? [prefix] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (value && typeof value === 'object')
    return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
  return here;
}

function parentOf(root: unknown, path: Path): { parent: Json | unknown[]; key: string | number } | null {
  let node: unknown = root;
  for (const step of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return null;
    node = (node as Json)[step as string];
  }
  return node && typeof node === 'object' ? { parent: node as Json, key: path[path.length - 1]! } : null;
}

/** Applies `edit` to `root` in place (a no-op when an earlier edit removed the path). */
export function applyEdit(root: unknown, paths: Path[], edit: ConfigEdit): string {
  const path = paths[edit.at % paths.length]!;
  const where = parentOf(root, path);
  const name = `${edit.op} ${path.join('.')}`;
  if (!where) return `${name} (gone)`;
  const { parent, key } = where;
  const current = (parent as Json)[key as string];
  switch (edit.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      break;
    case 'replace':
      (parent as Json)[key as string] = edit.value;
      break;
    case 'duplicate-item':
      if (Array.isArray(current) && current.length) current.push(structuredClone(current[0]));
      break;
    case 'empty-array':
      if (Array.isArray(current)) current.length = 0;
      break;
    case 'add-key':
      if (current && typeof current === 'object' && !Array.isArray(current)) (current as Json)[edit.key] = edit.value;
      break;
  }
  return name;
}

const boundary = fc.constantFrom<unknown>(
  '',
  ' ',
  'x'.repeat(300),
  'A',
  '0',
  -1,
  0,
  0.5,
  1,
  49,
  64,
  500,
  9500,
  9501,
  1e9,
  -1e-9,
  2 ** 53 + 2,
  1e308,
  true,
  false,
  null,
  [],
  {},
  ['<unlisted-tools>'],
  'a(b',
  '(?=x)',
  '\\1',
  '.*',
  'flow:brochure',
  'tag:vip',
);

const replacement = fc.oneof(
  { weight: 3, arbitrary: boundary },
  { weight: 2, arbitrary: wellFormedJson(2) },
  { weight: 2, arbitrary: wellFormedString(60) },
  { weight: 1, arbitrary: edgeString },
  { weight: 1, arbitrary: withLoneSurrogate(wellFormedString(20)) },
  { weight: 1, arbitrary: fc.integer({ min: 64, max: 5000 }).map((n) => 'y'.repeat(n)) },
);

export const configEdit: fc.Arbitrary<ConfigEdit> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: replacement }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constantFrom('duplicate-item' as const, 'empty-array' as const), at: fc.nat() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('add-key' as const),
      at: fc.nat(),
      key: wellFormedString(12),
      value: wellFormedJson(1),
    }),
  },
);

/** A whole body that is not a config object, or not JSON: 4xx whatever the tenant. */
export const notAConfig = fc.constantFrom(
  '[]',
  'null',
  '42',
  '"config"',
  '{',
  '{"version":1,}',
  '\ufeff{"version":',
  `${'['.repeat(100)}${']'.repeat(100)}`,
  '{"persona":"\\ud800"}',
);

export type ConfigCase = { kind: 'edits'; edits: ConfigEdit[] } | { kind: 'raw'; body: string };

export const configCase: fc.Arbitrary<ConfigCase> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .array(configEdit, { minLength: 1, maxLength: 3 })
      .map((edits): ConfigCase => ({ kind: 'edits', edits })),
  },
  { weight: 1, arbitrary: notAConfig.map((body): ConfigCase => ({ kind: 'raw', body })) },
);
