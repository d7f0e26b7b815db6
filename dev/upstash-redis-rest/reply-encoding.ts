// Imported so Buffer.* is typed: @cloudflare/workers-types (also in this tsconfig) declares a global `Buffer: any`.
import { Buffer } from 'node:buffer';

export type Json = string | number | null | Json[];
export type Item = { result: Json } | { error: string };

/** RESP2 reply → JSON. In base64 mode every string at any depth is encoded, status replies like OK included. */
export function encode(reply: unknown, base64: boolean): Json {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'number') return reply;
  if (isBuffer(reply)) return reply.toString(base64 ? 'base64' : 'utf8');
  if (Array.isArray(reply)) return reply.map((r) => encode(r, base64));
  // Errors nested in arrays (e.g. a Lua table holding redis.error_reply) have no JSON form; keep the text.
  if (reply instanceof Error) return encode(Buffer.from(reply.message), base64);
  return encode(Buffer.from(String(reply)), base64);
}

/** Named guard: narrowing `unknown` via Buffer.isBuffer directly yields a type whose toString takes no encoding. */
function isBuffer(value: unknown): value is Buffer {
  return Buffer.isBuffer(value);
}
