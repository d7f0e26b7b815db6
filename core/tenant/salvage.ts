import type { z } from 'zod';

/**
 * What can be read of a config that does not validate, so the cross-field rules (names unique,
 * references resolve, the manifest's rules, the tool order) can run in the same answer as the
 * field errors: a PUT with five mistakes names all five at once. Elements of a list that do not
 * validate are left out, as are fields that do not; a nested object keeps what of it validates.
 * The result is only ever checked, never stored or used.
 */
type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value if it validates, or what of it validates, or undefined. */
function salvageValue(schema: z.ZodType, raw: unknown): { value: unknown } | undefined {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data };
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional': {
      const inner = def.innerType ? salvageValue(def.innerType, raw) : undefined;
      if (inner) return inner;
      const fallback = schema.safeParse(undefined);
      return fallback.success ? { value: fallback.data } : undefined;
    }
    case 'array':
      if (!Array.isArray(raw) || !def.element) return { value: [] };
      return {
        value: raw.flatMap((item) => {
          const r = def.element!.safeParse(item);
          return r.success ? [r.data] : [];
        }),
      };
    case 'record':
      if (!isPlainObject(raw) || !def.valueType) return { value: {} };
      return {
        value: Object.fromEntries(
          Object.entries(raw).flatMap(([k, v]) => {
            const r = def.valueType!.safeParse(v);
            return r.success ? [[k, r.data]] : [];
          }),
        ),
      };
    case 'object':
      return { value: salvageObject(def.shape ?? {}, isPlainObject(raw) ? raw : {}) };
    default:
      return undefined;
  }
}

function salvageObject(shape: Record<string, z.ZodType>, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const salvaged = salvageValue(field, raw[key]);
    if (salvaged && salvaged.value !== undefined) out[key] = salvaged.value;
  }
  return out;
}

/** What of `raw` validates against the object schema's fields (see above). */
export function salvageConfig(schema: z.ZodObject, raw: unknown): Record<string, unknown> {
  return salvageObject(schema.shape as Record<string, z.ZodType>, isPlainObject(raw) ? raw : {});
}
