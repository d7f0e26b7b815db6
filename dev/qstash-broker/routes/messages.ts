import { isPending } from '../engine.js';
import { CANCEL_FILTERS, matches, parseQuery, type FilterSubject, type QuerySpec } from '../filters.js';
import { decodeSegment, HttpError, route, sendJson, type Route } from '../http.js';
import type { Message } from '../types.js';
import { messageView } from '../views.js';
import type { BrokerParts } from './parts.js';

/** GET /v2/messages/{id}, DELETE /v2/messages/{id}, DELETE /v2/messages (bulk cancel with filters). */

const BULK_CANCEL: QuerySpec = {
  endpoint: 'DELETE /v2/messages',
  filters: CANCEL_FILTERS,
  params: ['count', 'messageIds'],
  count: { max: 500 },
};

export function messageSubject(m: Message): FilterSubject {
  return {
    messageId: m.messageId,
    url: m.url,
    time: m.createdAt,
    labels: m.labels,
    flowControlKey: m.flowControl?.key,
    scheduleId: m.scheduleId,
    callerIp: m.callerIp,
  };
}

export function messageRoutes({ engine }: BrokerParts): Route[] {
  return [
    route('GET', /^\/v2\/messages\/([^/]+)$/, ({ res, match }) => {
      const m = engine.get(decodeSegment(match[1] ?? ''));
      if (!m) throw new HttpError(404, 'message not found');
      sendJson(res, 200, messageView(m));
    }),
    route('DELETE', /^\/v2\/messages\/([^/]+)$/, ({ res, match }) => {
      const id = decodeSegment(match[1] ?? '');
      if (!engine.get(id)) throw new HttpError(404, 'message not found');
      if (!engine.cancel(id))
        throw new HttpError(404, `message ${id} is not pending (already delivered, failed or cancelled)`);
      sendJson(res, 200, { cancelled: 1 });
    }),
    route('DELETE', /^\/v2\/messages$/, ({ res, query }) => {
      // messageIds: exactly those (other filters ignored, as documented); otherwise every pending
      // message that passes the filters, oldest first, at most `count` of them.
      const { ids, filters, count } = parseQuery(query, BULK_CANCEL);
      const targets = ids
        ? ids
        : engine
            .all()
            .filter((m) => isPending(m) && matches(filters, messageSubject(m)))
            .slice(0, count)
            .map((m) => m.messageId);
      sendJson(res, 200, { cancelled: targets.filter((id) => engine.cancel(id)).length });
    }),
  ];
}
