import { dlqSubject } from '../dead-letters.js';
import { DLQ_FILTERS, matches, parseQuery, type ParsedQuery, type QuerySpec } from '../filters.js';
import { decodeSegment, HttpError, route, sendJson, webHeaders, type Route } from '../http.js';
import { pageBySeq } from '../paging.js';
import { parsePublishHeaders } from '../parse.js';
import type { DlqEntry } from '../types.js';
import { dlqView } from '../views.js';
import type { BrokerParts } from './parts.js';

/** GET|DELETE /v2/dlq, GET|DELETE /v2/dlq/{dlqId}, POST /v2/dlq/retry[/{dlqId}]. */

const spec = (endpoint: string, list: boolean): QuerySpec => ({
  endpoint,
  filters: DLQ_FILTERS,
  params: list ? ['cursor', 'count', 'order', 'dlqIds'] : ['cursor', 'count', 'dlqIds'],
  count: { default: 100, max: 100 },
});
const LIST = spec('GET /v2/dlq', true);
const DELETE = spec('DELETE /v2/dlq', false);
const RETRY = spec('POST /v2/dlq/retry', false);

export function dlqRoutes({ engine }: BrokerParts): Route[] {
  /** dlqIds: exactly those, no cursor (filters ignored, as documented); else a page of the matching entries. */
  const select = (q: ParsedQuery): { items: DlqEntry[]; cursor?: string } => {
    if (q.ids) return { items: q.ids.map((id) => engine.dlq.get(id)).filter((e): e is DlqEntry => e !== undefined) };
    const matching = engine.dlq.all().filter((e) => matches(q.filters, dlqSubject(e)));
    return pageBySeq(matching, { order: q.order ?? 'earliestFirst', cursor: q.cursor, count: q.count ?? 100 });
  };
  const withCursor = (cursor: string | undefined) => (cursor ? { cursor } : {});

  return [
    route('GET', /^\/v2\/dlq$/, ({ res, query }) => {
      const { items, cursor } = select(parseQuery(query, LIST));
      sendJson(res, 200, { messages: items.map(dlqView), ...withCursor(cursor) });
    }),
    route('DELETE', /^\/v2\/dlq$/, ({ res, query }) => {
      const { items, cursor } = select(parseQuery(query, DELETE));
      for (const e of items) engine.dlq.delete(e.dlqId);
      sendJson(res, 200, { deleted: items.length, ...withCursor(cursor) });
    }),
    route('POST', /^\/v2\/dlq\/retry$/, ({ req, res, query }) => {
      const overrides = parsePublishHeaders(webHeaders(req));
      const parsed = parseQuery(query, RETRY);
      const missing = parsed.ids?.filter((id) => !engine.dlq.get(id)) ?? [];
      if (missing.length) throw new HttpError(404, `dlq messages not found: ${missing.join(', ')}`);
      const { items, cursor } = select(parsed);
      const responses = items.map((e) => ({ messageId: engine.dlqRetry(e.dlqId, overrides) }));
      sendJson(res, 200, { responses, ...withCursor(cursor) });
    }),
    route('POST', /^\/v2\/dlq\/retry\/([^/]+)$/, ({ req, res, match }) => {
      const messageId = engine.dlqRetry(decodeSegment(match[1] ?? ''), parsePublishHeaders(webHeaders(req)));
      if (!messageId) throw new HttpError(404, 'dlq message not found');
      sendJson(res, 200, { messageId });
    }),
    route('GET', /^\/v2\/dlq\/([^/]+)$/, ({ res, match }) => {
      const e = engine.dlq.get(decodeSegment(match[1] ?? ''));
      if (!e) throw new HttpError(404, 'dlq message not found');
      sendJson(res, 200, dlqView(e));
    }),
    route('DELETE', /^\/v2\/dlq\/([^/]+)$/, ({ res, match }) => {
      if (!engine.dlq.delete(decodeSegment(match[1] ?? ''))) throw new HttpError(404, 'dlq message not found');
      sendJson(res, 200, { deleted: 1 });
    }),
  ];
}
