import type { z } from 'zod';
import { suggestion } from './nearest-name.js';

/**
 * Rules a config must meet to be *saved*, beyond its schema: a stored config that predates them
 * still loads (its turns keep running), but nothing new is saved that breaks them.
 *
 * - Unknown keys: zod strips them without a word, so a typo (`fallbakReply`) would silently keep
 *   the old value. Each is refused with the nearest known key.
 * - A flow's ManyChat id has ManyChat's shape (`content20261101000000_000101`): a pasted URL or a
 *   flow's title would be saved, promised to contacts, and then die at delivery.
 * - A manifest declaration whose name is not a tool but is one typo away from a tool that has no
 *   declaration (`search_fqa` for `search_faq`): saved, it would quietly unregister the tool.
 */
export const FLOW_NS_PATTERN = /^content\d{8,20}_\d{1,12}$/;

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  catchall?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every key of `raw` the schema does not know, as `path: unknown setting "k"; did you mean "…"?`. */
export function unknownKeyProblems(schema: z.ZodType, raw: unknown, path: string[] = [], depth = 0): string[] {
  if (depth > 12) return [];
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
      return def.innerType ? unknownKeyProblems(def.innerType, raw, path, depth + 1) : [];
    case 'pipe':
      return def.in ? unknownKeyProblems(def.in, raw, path, depth + 1) : [];
    case 'array':
      return Array.isArray(raw) && def.element
        ? raw.flatMap((v, i) => unknownKeyProblems(def.element!, v, [...path, String(i)], depth + 1))
        : [];
    case 'record':
      return isObject(raw) && def.valueType
        ? Object.entries(raw).flatMap(([k, v]) => unknownKeyProblems(def.valueType!, v, [...path, k], depth + 1))
        : [];
    case 'object': {
      if (!isObject(raw) || !def.shape) return [];
      const known = Object.keys(def.shape);
      const out: string[] = [];
      for (const [k, v] of Object.entries(raw)) {
        const child = def.shape[k];
        if (child) out.push(...unknownKeyProblems(child, v, [...path, k], depth + 1));
        // A strict object reports its own unknown keys (zod's unrecognized_keys).
        else if (!def.catchall) out.push(`${[...path, k].join('.')}: unknown setting "${k}"${suggestion(k, known)}`);
      }
      return out;
    }
    default:
      return [];
  }
}

/** A flow id that does not have ManyChat's shape; a URL that contains one is named with it. */
export function flowNsProblems(flows: readonly { ns?: unknown }[]): string[] {
  const out: string[] = [];
  flows.forEach((f, i) => {
    if (typeof f.ns !== 'string' || f.ns === '' || FLOW_NS_PATTERN.test(f.ns)) return;
    const inside = /content\d{8,20}_\d{1,12}/.exec(f.ns)?.[0];
    out.push(
      `flows.${i}.ns: "${f.ns.slice(0, 80)}" is not a ManyChat flow id (they look like content20261101000000_000101${inside ? `; use "${inside}"` : ", and are in the flow's address in ManyChat"})`,
    );
  });
  return out;
}

/** A declaration one typo away from an undeclared tool: named with the tool it was meant for. */
export function manifestNameProblems(
  manifest: Readonly<Record<string, unknown>>,
  toolNames: readonly string[],
): string[] {
  const undeclared = toolNames.filter((n) => !(n in manifest));
  const out: string[] = [];
  for (const key of Object.keys(manifest)) {
    if (toolNames.includes(key)) continue;
    const hint = suggestion(key, undeclared);
    if (hint.startsWith('; did you mean'))
      out.push(
        `manifest.${key}: no tool is named "${key}"${hint} (as it is, "${key}" declares nothing and the tool is not offered)`,
      );
  }
  return out;
}
