import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { parseUntrustedJson, type UntrustedJson } from './untrusted-json.js';

/** Every 4xx/5xx the product sends: JSON that names the problem. */
export function jsonError(c: Context, status: ContentfulStatusCode, error: string, details?: string[]) {
  return c.json({ error, ...(details?.length ? { details } : {}) }, status);
}

/** JSON from outside: bounded nesting, well-formed strings (see untrusted-json.ts). */
export function parseJsonText(text: string): UntrustedJson {
  return parseUntrustedJson(text);
}

/** Each zod issue as `path: message`, the path naming the field. */
export function zodProblems(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
}

/** A JSON body checked against `schema`, or the 400 that says what is wrong with it. */
export function parseJsonBody<T>(
  c: Context,
  text: string,
  schema: z.ZodType<T>,
  what: string,
): { ok: true; value: T } | { ok: false; response: Response } {
  const json = parseJsonText(text);
  if (!json.ok) return { ok: false, response: jsonError(c, 400, json.error) };
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) return { ok: false, response: jsonError(c, 400, `invalid ${what}`, zodProblems(parsed.error)) };
  return { ok: true, value: parsed.data };
}

/** An error message fit for a log line or a health probe: cut before any echoed command or body, bounded. */
export function safeErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split(/, command was:|\n/)[0]!.slice(0, 200);
}
