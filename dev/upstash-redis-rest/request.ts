// Imported so Buffer.* is typed: @cloudflare/workers-types (also in this tsconfig) declares a global `Buffer: any`.
import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Cmd } from './command-policy.js';
import { HttpError } from './http-error.js';
import { acceptUpstashScriptFlags } from './script-flags.js';
import { withUpstashExtensions } from './upstash-extensions.js';

/** Bodies above this are answered 413 without being buffered. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** One command array → strings. Scalars are coerced like Upstash does; anything else is a client bug. */
export function toCommand(value: unknown, where: string): Cmd {
  if (!Array.isArray(value)) throw new HttpError(400, `${where} must be a JSON array like ["set","key","value"]`);
  const [name, ...rest] = value as unknown[];
  if (typeof name !== 'string' || name === '')
    throw new HttpError(400, `${where} must start with the command name as a non-empty string`);
  const args = rest.map((arg, i) => {
    if (typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean') return String(arg);
    throw new HttpError(
      400,
      `argument ${i + 1} of ${where} is ${arg === null ? 'null' : typeof arg}; only strings, numbers and booleans are allowed`,
    );
  });
  return withUpstashExtensions(acceptUpstashScriptFlags([name, ...args]));
}

export function toCommandList(value: unknown): Cmd[] {
  if (!Array.isArray(value))
    throw new HttpError(400, 'body must be a JSON array of command arrays like [["set","k","v"],["get","k"]]');
  if (value.length === 0) throw new HttpError(400, 'body must contain at least one command');
  return value.map((cmd, i) => toCommand(cmd, `command ${i + 1}`));
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export function checkAuth(header: string | undefined, expectedDigest: Buffer): void {
  if (!header) throw new HttpError(401, 'Unauthorized: missing Authorization header (expected "Bearer <token>")');
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1]) throw new HttpError(401, 'Unauthorized: malformed Authorization header (expected "Bearer <token>")');
  // Comparing fixed-length digests keeps the check constant-time regardless of the token's length.
  if (!timingSafeEqual(sha256(match[1]), expectedDigest)) throw new HttpError(401, 'Unauthorized: invalid token');
}

/** Buffers the body up to MAX_BODY_BYTES; past that, 413 (Node drains and discards the rest). */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, `body exceeds ${MAX_BODY_BYTES} bytes`);
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Custom headers are typed string | string[]; Node only ever repeats set-cookie, so take the first. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
