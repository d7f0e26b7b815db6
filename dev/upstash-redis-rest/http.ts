// Imported so Buffer.* is typed: @cloudflare/workers-types (also in this tsconfig) declares a global `Buffer: any`.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { refusal } from './command-policy.js';
import { runOne, runPipeline, runTransaction, type Backend } from './execute.js';
import { errorText, HttpError, isRedisError } from './http-error.js';
import { encode, type Item, type Json } from './reply-encoding.js';
import { explainRedisError } from './redis-version.js';
import { checkAuth, header, readBody, toCommand, toCommandList } from './request.js';

type Route = (backend: Backend, body: unknown, base64: boolean) => Promise<Json | Item | Item[]>;

const routes: Record<string, Route> = {
  '/': async (backend, body, base64) => {
    const cmd = toCommand(body, 'body');
    const why = refusal(cmd, false);
    if (why) throw new HttpError(400, why);
    try {
      return { result: encode(await runOne(backend, cmd), base64) };
    } catch (err) {
      throw isRedisError(err) ? new HttpError(400, explainRedisError(err.message, backend.redisVersion)) : err;
    }
  },
  '/pipeline': (backend, body, base64) => runPipeline(backend, toCommandList(body), base64),
  '/multi-exec': (backend, body, base64) => runTransaction(backend, toCommandList(body), base64),
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** What the bridge was asked, as Upstash bills it: each command of a pipeline or transaction counts, a script (EVAL/EVALSHA) is one. */
export interface BridgeUsage {
  requests: number;
  commands: number;
}

/**
 * Dev only, a fault hook (not in Upstash): a request whose raw body contains every string of
 * `contains` runs at once but is answered `delayMs` later — Redis did the work, the client learns
 * it late (past its timeout). `count` requests are delayed, then the rule is spent.
 */
export interface LateAnswerRule {
  contains: string[];
  delayMs: number;
  count: number;
}

export async function handle(
  req: IncomingMessage,
  backend: Backend,
  tokenDigest: Buffer,
  usage?: BridgeUsage,
  lateAnswers: LateAnswerRule[] = [],
): Promise<unknown> {
  // Not new URL(): it would read a path like `//x/pipeline` as a host plus path.
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  // Dev only (not in Upstash): the usage so far, for benchmarks that report commands per turn.
  if (path === '/__dev/usage' && req.method === 'GET') {
    checkAuth(req.headers.authorization, tokenDigest);
    return usage ?? { requests: 0, commands: 0 };
  }
  const route = routes[path];
  if (!route)
    throw new HttpError(404, `Endpoint not found: ${path} (this bridge serves POST /, /pipeline, /multi-exec)`);
  if (req.method !== 'POST') throw new HttpError(405, `Method ${req.method} not allowed; use POST`);
  checkAuth(req.headers.authorization, tokenDigest);
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json')
    throw new HttpError(
      400,
      `Invalid content type ${JSON.stringify(req.headers['content-type'] ?? '')}; expected application/json`,
    );
  const format = header(req, 'upstash-response-format');
  if (format !== undefined && format.toLowerCase() !== 'json')
    throw new HttpError(
      400,
      `Upstash-Response-Format ${JSON.stringify(format)} is not supported by this bridge; only json`,
    );
  const raw = await readBody(req);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Invalid JSON body: ${errorText(err)}`);
  }
  const base64 = header(req, 'upstash-encoding')?.toLowerCase() === 'base64';
  if (usage) {
    usage.requests++;
    usage.commands += path === '/' ? 1 : Array.isArray(body) ? body.length : 0;
  }
  const answer = await route(backend, body, base64);
  const text = lateAnswers.length ? raw.toString('utf8') : '';
  const late = lateAnswers.find((r) => r.count > 0 && r.contains.every((c) => text.includes(c)));
  if (late) {
    late.count--;
    await new Promise((resolve) => setTimeout(resolve, late.delayMs));
  }
  return answer;
}

/** Malformed HTTP never reaches a handler; answer it in JSON too rather than Node's plain text. */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const [status, reason] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const text = JSON.stringify({ error: `Malformed HTTP request: ${err.message}` });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
