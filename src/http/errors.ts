import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every 4xx/5xx the product sends: JSON that names the problem. */
export function jsonError(c: Context, status: ContentfulStatusCode, error: string, details?: string[]) {
  return c.json({ error, ...(details?.length ? { details } : {}) }, status);
}

/** Reads the body as text, refusing more than `limit` bytes (413) before parsing anything. */
export async function readBodyLimited(c: Context, limit: number): Promise<{ ok: true; text: string } | { ok: false; status: 413 | 400; error: string }> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limit) return { ok: false, status: 413, error: `body is ${declared} bytes; the limit is ${limit}` };
  const buffer = await c.req.arrayBuffer();
  if (buffer.byteLength > limit) return { ok: false, status: 413, error: `body is ${buffer.byteLength} bytes; the limit is ${limit}` };
  return { ok: true, text: new TextDecoder().decode(buffer) };
}

export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: `body is not valid JSON (${err instanceof Error ? err.message : 'parse error'})` };
  }
}
