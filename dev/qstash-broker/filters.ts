import { BadRequest } from './parse.js';

/**
 * Query filters of the list and bulk endpoints (DLQ list/delete/retry, bulk cancel, logs), as the
 * QStash API documents them and `@upstash/qstash` sends them: multi-value filters match any of
 * their values (repeated parameters or one comma-separated value), separate filters must all
 * match. A parameter an endpoint does not take is a 400 naming it, never ignored: ignoring it
 * would widen a bulk delete or cancel to messages the caller meant to keep.
 */
export type FilterName =
  | 'messageId'
  | 'url'
  | 'topicName'
  | 'scheduleId'
  | 'queueName'
  | 'fromDate'
  | 'toDate'
  | 'responseStatus'
  | 'callerIp'
  | 'label'
  | 'flowControlKey'
  | 'host'
  | 'path'
  | 'state';

type ParamName = 'cursor' | 'count' | 'order' | 'dlqIds' | 'messageIds';

export const LOG_STATES = [
  'CREATED',
  'ACTIVE',
  'RETRY',
  'ERROR',
  'IN_PROGRESS',
  'DELIVERED',
  'FAILED',
  'CANCEL_REQUESTED',
  'CANCELLED',
] as const;
export type LogState = Exclude<(typeof LOG_STATES)[number], 'IN_PROGRESS'>;

export interface Filters {
  messageId?: string;
  url?: string[];
  topicName?: string[];
  scheduleId?: string[];
  queueName?: string[];
  fromDate?: number;
  toDate?: number;
  responseStatus?: number[];
  callerIp?: string[];
  label?: string[];
  flowControlKey?: string[];
  host?: string[];
  path?: string[];
  state?: (typeof LOG_STATES)[number];
}

/** What a filter can look at; the broker has no URL groups or queues, so topicName/queueName never match. */
export interface FilterSubject {
  messageId: string;
  url: string;
  /** createdAt of a message or DLQ entry; the time of a log event. */
  time: number;
  labels: readonly string[];
  flowControlKey?: string;
  scheduleId?: string;
  callerIp?: string;
  responseStatus?: number;
  state?: LogState;
}

export interface QuerySpec {
  /** e.g. "DELETE /v2/dlq", for error messages. */
  endpoint: string;
  filters: readonly FilterName[];
  params: readonly ParamName[];
  /** Omit `default` for "no limit unless count is given". */
  count?: { default?: number; max: number };
}

export interface ParsedQuery {
  filters: Filters;
  /** dlqIds / messageIds: when given, the other filters are ignored, as the API documents. */
  ids?: string[];
  count?: number;
  cursor?: number;
  order?: 'earliestFirst' | 'latestFirst';
}

const MULTI_VALUE = new Set<FilterName>([
  'url',
  'topicName',
  'scheduleId',
  'queueName',
  'responseStatus',
  'callerIp',
  'label',
  'flowControlKey',
  'host',
  'path',
]);

function values(query: URLSearchParams, key: string, name: string): string[] {
  // A URL may itself contain commas, so only repeated parameters give several URLs.
  const raw = query.getAll(key).flatMap((v) => (name === 'url' ? [v] : v.split(',')));
  const out = raw.map((v) => v.trim());
  if (out.some((v) => v === '')) throw new BadRequest(`empty value in query parameter "${key}"`);
  return out;
}

function integer(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw new BadRequest(`invalid ${what}: "${text}" (expected a non-negative integer)`);
  return Number(text);
}

function single(query: URLSearchParams, key: string): string {
  const all = query.getAll(key);
  if (all.length !== 1) throw new BadRequest(`query parameter "${key}" takes one value, got ${all.length}`);
  return all[0]!;
}

function parseFilter(filters: Filters, name: FilterName, query: URLSearchParams, key: string): void {
  if (name === 'messageId') filters.messageId = single(query, key);
  else if (name === 'fromDate' || name === 'toDate')
    filters[name] = integer(single(query, key), `${name} (unix milliseconds)`);
  else if (name === 'state') {
    const state = single(query, key)
      .toUpperCase()
      .replace(/^CANCELED$/, 'CANCELLED');
    if (!(LOG_STATES as readonly string[]).includes(state))
      throw new BadRequest(`invalid state "${state}" (expected one of ${LOG_STATES.join(', ')})`);
    filters.state = state as Filters['state'];
  } else if (name === 'responseStatus')
    filters.responseStatus = values(query, key, name).map((v) => integer(v, 'responseStatus'));
  else if (MULTI_VALUE.has(name))
    (filters as Record<string, string[]>)[name] = [
      ...((filters as Record<string, string[] | undefined>)[name] ?? []),
      ...values(query, key, name),
    ];
}

export function parseQuery(query: URLSearchParams, spec: QuerySpec): ParsedQuery {
  const parsed: ParsedQuery = { filters: {} };
  const accepted = new Set<string>([...spec.filters, ...spec.params]);
  for (const key of new Set(query.keys())) {
    // callerIP is the deprecated spelling QStash still takes.
    const name = key === 'callerIP' && accepted.has('callerIp') ? 'callerIp' : key;
    if (!accepted.has(name)) {
      throw new BadRequest(
        `unknown query parameter "${key}" for ${spec.endpoint}; it takes ${[...accepted].join(', ')}`,
      );
    }
    if (name === 'dlqIds' || name === 'messageIds')
      parsed.ids = query
        .getAll(key)
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean);
    else if (name === 'cursor') parsed.cursor = integer(single(query, key), 'cursor');
    else if (name === 'count') {
      const count = integer(single(query, key), 'count');
      const max = spec.count?.max ?? 100;
      if (count < 1 || count > max)
        throw new BadRequest(`invalid count ${count} for ${spec.endpoint}: between 1 and ${max}`);
      parsed.count = count;
    } else if (name === 'order') {
      const order = single(query, key);
      if (order !== 'earliestFirst' && order !== 'latestFirst')
        throw new BadRequest(`invalid order "${order}" (expected earliestFirst or latestFirst)`);
      parsed.order = order;
    } else parseFilter(parsed.filters, name as FilterName, query, key);
  }
  parsed.count ??= spec.count?.default;
  return parsed;
}

function urlPart(url: string, part: 'host' | 'pathname'): string | undefined {
  try {
    return new URL(url)[part];
  } catch {
    return undefined;
  }
}

const anyOf = <T>(wanted: readonly T[] | undefined, actual: T | undefined) =>
  wanted === undefined || (actual !== undefined && wanted.includes(actual));

/** True when the subject passes every filter given (AND), each multi-value filter by any value (OR). */
export function matches(f: Filters, s: FilterSubject): boolean {
  const inProgress = f.state === 'IN_PROGRESS' && (s.state === 'ACTIVE' || s.state === 'RETRY' || s.state === 'ERROR');
  return (
    (f.messageId === undefined || f.messageId === s.messageId) &&
    anyOf(f.url, s.url) &&
    anyOf(f.host, urlPart(s.url, 'host')) &&
    anyOf(f.path, urlPart(s.url, 'pathname')) &&
    f.topicName === undefined &&
    f.queueName === undefined &&
    anyOf(f.scheduleId, s.scheduleId) &&
    anyOf(f.callerIp, s.callerIp) &&
    anyOf(f.flowControlKey, s.flowControlKey) &&
    anyOf(f.responseStatus, s.responseStatus) &&
    (f.label === undefined || s.labels.some((l) => f.label!.includes(l))) &&
    (f.fromDate === undefined || s.time >= f.fromDate) &&
    (f.toDate === undefined || s.time <= f.toDate) &&
    (f.state === undefined || inProgress || f.state === s.state)
  );
}

/** Filters of the DLQ endpoints (the DLQ rejects host and path, as QStash does). */
export const DLQ_FILTERS: readonly FilterName[] = [
  'messageId',
  'url',
  'topicName',
  'scheduleId',
  'queueName',
  'fromDate',
  'toDate',
  'responseStatus',
  'callerIp',
  'label',
  'flowControlKey',
];
/** Filters of the bulk cancel (DELETE /v2/messages). */
export const CANCEL_FILTERS: readonly FilterName[] = [
  'url',
  'topicName',
  'scheduleId',
  'queueName',
  'fromDate',
  'toDate',
  'callerIp',
  'label',
  'flowControlKey',
  'host',
  'path',
];
/** Filters of the logs (GET /v2/events, /v2/logs). */
export const LOG_FILTERS: readonly FilterName[] = [
  'messageId',
  'url',
  'topicName',
  'scheduleId',
  'queueName',
  'fromDate',
  'toDate',
  'callerIp',
  'label',
  'flowControlKey',
  'host',
  'path',
  'state',
];
