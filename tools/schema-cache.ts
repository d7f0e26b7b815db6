import { zodSchema } from 'ai';
import type { z } from 'zod';

/**
 * Tool schemas and descriptions, built once per tenant config object rather than once per turn.
 * The AI SDK turns a zod input schema into JSON Schema on every call it is given a fresh one
 * (profiled: about 2 ms of CPU a turn); its `zodSchema` wrapper computes that JSON Schema once and
 * keeps it, so a wrapper reused across turns costs nothing after the first. The key is the config
 * object itself: the isolate's cached tenant keeps one object until the tenant changes, and a
 * changed (or re-read) config is a new object, so nothing stale is ever served.
 */
const byConfig = new WeakMap<object, Map<string, unknown>>();

export function perConfig<T>(config: object, key: string, build: () => T): T {
  let entries = byConfig.get(config);
  if (!entries) byConfig.set(config, (entries = new Map()));
  if (!entries.has(key)) entries.set(key, build());
  return entries.get(key) as T;
}

/** A zod schema wrapped for the AI SDK once, so its JSON Schema is computed once. */
export function wrappedSchema<T>(schema: z.ZodType<T>) {
  return zodSchema(schema);
}
