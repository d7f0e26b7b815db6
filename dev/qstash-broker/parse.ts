import { compileRetryDelay, type RetryDelayFn } from './retry-delay.js';

/** A client error whose message names the offending header or field; the router turns it into a 400. */
export class BadRequest extends Error {
  override name = 'BadRequest';
}

/** A real QStash feature this stand-in does not offer; the router answers 501 with the message. */
export class NotOffered extends Error {
  override name = 'NotOffered';
}

export const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS };
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** `10s`, `1m`, `1d10h30m`, `1.5h`, `300ms`, or plain seconds (`30`). Returns ms, or undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number.isFinite(Number(s) * 1000) ? Number(s) * 1000 : undefined;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  for (let m = DURATION_PART.exec(s); m; m = DURATION_PART.exec(s)) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? NaN);
    if (DURATION_PART.lastIndex === s.length) return Number.isFinite(total) ? total : undefined;
  }
  return undefined;
}

/** `Retry-After` as seconds, an HTTP date, or a duration like `6m5s`; capped at a day as QStash does. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  let ms = parseDuration(value);
  if (ms === undefined) {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, DAY_MS);
}

/** The destination must be an absolute http(s) URL; URL groups, queues and APIs are not emulated. */
export function parseDestination(raw: string): string {
  // QStash reads a destination that is not a URL as a URL group name (or `api/…`); say that is missing here.
  if (/^[\w.-]+$/.test(raw) || raw.startsWith('api/')) {
    throw new NotOffered(
      `destination "${raw}" is a URL group or API name; the local QStash stand-in delivers to http(s) URLs only (URL groups and APIs are not offered)`,
    );
  }
  let dest = raw;
  // Some clients percent-encode the destination (`https%3A%2F%2F...`); the SDK appends it raw.
  if (!/^https?:\/\//i.test(dest) && /^https?%3A/i.test(dest)) {
    try {
      dest = decodeURIComponent(dest);
    } catch {
      throw new BadRequest(`invalid destination: not a decodable URL: ${raw}`);
    }
  }
  let url: URL;
  try {
    url = new URL(dest);
  } catch {
    throw new BadRequest(
      `invalid destination "${raw}": must be an http(s) URL (URL groups are not supported by the dev broker)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BadRequest(`invalid destination "${raw}": only http and https are allowed`);
  return dest;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
/** Headers that fetch refuses or that describe the publish hop, never the delivery. */
const UNFORWARDABLE = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);
const FORWARD_PREFIX = 'upstash-forward-';
export const MAX_RETRIES = 100;

/** Delivery options from `Upstash-*` headers; every field is optional so DLQ retry can use it as overrides. */
export interface PublishSpec {
  method?: string;
  delayMs?: number;
  notBeforeMs?: number;
  retries?: number;
  retryDelay?: { expression: string; fn: RetryDelayFn };
  timeoutMs?: number;
  deduplicationId?: string;
  contentBasedDeduplication: boolean;
  callback?: string;
  failureCallback?: string;
  contentType?: string;
  /** Forwarded headers, lower-case names, `Upstash-Forward-` already stripped. */
  forward: Record<string, string>;
  /** `Upstash-Label`, comma-separated on the wire; undefined when the header is absent. */
  labels?: string[];
  flowControl?: FlowControl;
}

/** `Upstash-Flow-Control-Key` + `-Value` ("parallelism=2, rate=10, period=1m"). Enforced by flow-control.ts. */
export interface FlowControl {
  key: string;
  parallelism?: number;
  rate?: number;
  periodSeconds?: number;
}

function optionalUrl(headers: Headers, name: string): string | undefined {
  const value = headers.get(name);
  if (value === null) return undefined;
  try {
    return parseDestination(value.trim());
  } catch {
    throw new BadRequest(`invalid ${name} header: "${value}" is not an http(s) URL`);
  }
}

function optionalDuration(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined)
    throw new BadRequest(`invalid ${name} header: "${value}" (expected e.g. 10s, 1m, 1d10h30m or plain seconds)`);
  return ms;
}

function optionalInteger(headers: Headers, name: string, max: number): number | undefined {
  const value = headers.get(name);
  if (value === null) return undefined;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!(n <= max))
    throw new BadRequest(`invalid ${name} header: "${value}" (expected an integer between 0 and ${max})`);
  return n;
}

function parseRetryDelayHeader(headers: Headers): PublishSpec['retryDelay'] {
  const expression = headers.get('upstash-retry-delay');
  if (expression === null) return undefined;
  try {
    return { expression, fn: compileRetryDelay(expression) };
  } catch (err) {
    throw new BadRequest(`invalid Upstash-Retry-Delay header "${expression}": ${(err as Error).message}`);
  }
}

function parseBoolean(headers: Headers, name: string): boolean {
  const value = headers.get(name)?.trim().toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new BadRequest(`invalid ${name} header: "${value}" (expected true or false)`);
}

function forwardedHeaders(headers: Headers): Record<string, string> {
  const forward: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!name.startsWith(FORWARD_PREFIX)) continue;
    const target = name.slice(FORWARD_PREFIX.length);
    if (target && !UNFORWARDABLE.has(target)) forward[target] = value;
  }
  return forward;
}

function parseLabels(headers: Headers): string[] | undefined {
  const value = headers.get('upstash-label');
  if (value === null) return undefined;
  const labels = value
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);
  if (labels.length === 0)
    throw new BadRequest(`invalid Upstash-Label header: "${value}" (expected one label or a comma-separated list)`);
  return labels;
}

function parseFlowControl(headers: Headers): FlowControl | undefined {
  const key = headers.get('upstash-flow-control-key')?.trim();
  const value = headers.get('upstash-flow-control-value');
  if (key === undefined && value === null) return undefined;
  if (!key) throw new BadRequest('Upstash-Flow-Control-Value needs a non-empty Upstash-Flow-Control-Key header');
  if (value === null)
    throw new BadRequest(
      'Upstash-Flow-Control-Key needs an Upstash-Flow-Control-Value header (e.g. "parallelism=1" or "rate=10, period=1m")',
    );
  const flow: FlowControl = { key };
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name = '', raw = ''] = part.split('=').map((s) => s.trim());
    const bad = (why: string) => new BadRequest(`invalid Upstash-Flow-Control-Value header "${value}": ${why}`);
    if (name === 'period') {
      const ms = parseDuration(raw);
      if (ms === undefined || ms < 1000) throw bad(`period "${raw}" must be a duration of at least 1s`);
      flow.periodSeconds = Math.round(ms / 1000);
    } else if (name === 'parallelism' || name === 'rate') {
      if (!/^\d+$/.test(raw) || Number(raw) < 1) throw bad(`${name} must be a positive integer`);
      flow[name] = Number(raw);
    } else throw bad(`unknown setting "${name}" (expected parallelism, rate or period)`);
  }
  if (flow.parallelism === undefined && flow.rate === undefined)
    throw new BadRequest(`invalid Upstash-Flow-Control-Value header "${value}": set parallelism, rate or both`);
  return flow;
}

/** Parses every `Upstash-*` publish header; throws BadRequest naming the first bad one. */
export function parsePublishHeaders(headers: Headers): PublishSpec {
  const method = headers.get('upstash-method')?.trim().toUpperCase();
  if (method !== undefined && !METHODS.has(method))
    throw new BadRequest(`invalid Upstash-Method header: "${method}" (expected one of ${[...METHODS].join(', ')})`);
  const notBefore = optionalInteger(headers, 'Upstash-Not-Before', Number.MAX_SAFE_INTEGER / 1000);
  const deduplicationId = headers.get('upstash-deduplication-id') ?? undefined;
  if (deduplicationId !== undefined && deduplicationId.trim() === '')
    throw new BadRequest('invalid Upstash-Deduplication-Id header: empty');
  return {
    method,
    delayMs: optionalDuration(headers, 'Upstash-Delay'),
    notBeforeMs: notBefore === undefined ? undefined : notBefore * 1000,
    retries: optionalInteger(headers, 'Upstash-Retries', MAX_RETRIES),
    retryDelay: parseRetryDelayHeader(headers),
    timeoutMs: optionalDuration(headers, 'Upstash-Timeout'),
    deduplicationId,
    contentBasedDeduplication: parseBoolean(headers, 'Upstash-Content-Based-Deduplication'),
    callback: optionalUrl(headers, 'Upstash-Callback'),
    failureCallback: optionalUrl(headers, 'Upstash-Failure-Callback'),
    contentType: headers.get('content-type') ?? undefined,
    forward: forwardedHeaders(headers),
    labels: parseLabels(headers),
    flowControl: parseFlowControl(headers),
  };
}
