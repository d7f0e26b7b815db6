import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequest, NotOffered } from './parse.js';

/** Plumbing shared by the route groups: errors, JSON answers, bodies, auth, the route table. */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** node:http headers → web Headers, so the parser is shared with /v2/batch's JSON header maps. */
export function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Hashing first makes the comparison constant-time regardless of token length. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** The publisher's address as QStash reports it: plain IPv4 rather than Node's IPv4-mapped IPv6 form. */
export function callerIp(req: IncomingMessage): string | undefined {
  return req.socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`malformed path segment: ${segment}`);
  }
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  match: RegExpExecArray;
  query: URLSearchParams;
}

export interface Route {
  methods: readonly string[];
  pattern: RegExp;
  handler: (ctx: RouteContext) => Promise<void> | void;
  /** Match against path plus query, because publish's destination owns the query string. */
  rawUrl?: boolean;
}

export const route = (
  methods: string | readonly string[],
  pattern: RegExp,
  handler: Route['handler'],
  rawUrl = false,
): Route => ({
  methods: typeof methods === 'string' ? [methods] : methods,
  pattern,
  handler,
  rawUrl,
});

/** Finds the route for the request; undefined when none matches path and method. */
export function findRoute(
  table: readonly Route[],
  req: IncomingMessage,
): { route: Route; match: RegExpExecArray; query: URLSearchParams } | undefined {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  for (const r of table) {
    const match = r.pattern.exec(r.rawUrl ? raw : path);
    if (match && r.methods.includes(req.method ?? '')) return { route: r, match, query };
  }
  return undefined;
}

/** Maps what a handler throws to QStash-style JSON errors. */
export function sendError(res: ServerResponse, err: unknown, log: (line: string) => void): void {
  if (err instanceof HttpError) sendJson(res, err.status, { error: err.message });
  else if (err instanceof BadRequest) sendJson(res, 400, { error: err.message });
  else if (err instanceof NotOffered) sendJson(res, 501, { error: err.message });
  else {
    log(`internal error: ${err instanceof Error ? err.stack : String(err)}`);
    sendJson(res, 500, { error: `internal error: ${err instanceof Error ? err.message : String(err)}` });
  }
}
