import { logSubject, logView } from '../event-log.js';
import { LOG_FILTERS, matches, parseQuery, type QuerySpec } from '../filters.js';
import { route, sendJson, type Route } from '../http.js';
import { pageBySeq } from '../paging.js';
import type { BrokerParts } from './parts.js';

/**
 * GET /v2/events (what `client.logs()` calls; answers `events`) and GET /v2/logs (the documented
 * name; answers `logs`). Newest first by default; the cursor is opaque (an event sequence number,
 * where real QStash uses a timestamp), so pass back whatever the last page returned.
 */
const spec = (endpoint: string): QuerySpec => ({
  endpoint,
  filters: LOG_FILTERS,
  params: ['cursor', 'count', 'order', 'messageIds'],
  count: { default: 100, max: 1000 },
});

export function logRoutes({ engine }: BrokerParts): Route[] {
  const page = (query: URLSearchParams, endpoint: string) => {
    const q = parseQuery(query, spec(endpoint));
    const matching = engine.events
      .all()
      .filter((e) => (!q.ids || q.ids.includes(e.message.messageId)) && matches(q.filters, logSubject(e)));
    const { items, cursor } = pageBySeq(matching, {
      order: q.order ?? 'latestFirst',
      cursor: q.cursor,
      count: q.count ?? 100,
    });
    return { entries: items.map(logView), cursor };
  };
  return [
    route('GET', /^\/v2\/events$/, ({ res, query }) => {
      const { entries, cursor } = page(query, 'GET /v2/events');
      sendJson(res, 200, { events: entries, ...(cursor ? { cursor } : {}) });
    }),
    route('GET', /^\/v2\/logs$/, ({ res, query }) => {
      const { entries, cursor } = page(query, 'GET /v2/logs');
      sendJson(res, 200, { logs: entries, ...(cursor ? { cursor } : {}) });
    }),
  ];
}
