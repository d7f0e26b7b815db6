import { BadRequest } from '../parse.js';
import { decodeSegment, HttpError, readBody, route, sendJson, type Route } from '../http.js';
import { devMessageView } from '../views.js';
import type { BrokerParts } from './parts.js';

/**
 * Dev-only controls (no auth, not in QStash): inspect messages (with `published` and `delivered`
 * since start: the list itself keeps the newest 10,000), pause deliveries, fail publishes, fire a
 * schedule.
 */
export function devRoutes({ engine, scheduler, setFailPublishes }: BrokerParts): Route[] {
  return [
    route('GET', /^\/__dev\/messages$/, ({ res }) =>
      sendJson(res, 200, {
        paused: engine.isPaused,
        ...engine.totals,
        messages: engine.all().map(devMessageView),
      }),
    ),
    route('GET', /^\/__dev\/messages\/([^/]+)$/, ({ res, match }) => {
      const m = engine.get(decodeSegment(match[1] ?? ''));
      if (!m) throw new HttpError(404, 'message not found');
      sendJson(res, 200, devMessageView(m));
    }),
    route('POST', /^\/__dev\/pause$/, ({ res }) => (engine.pause(), sendJson(res, 200, { paused: true }))),
    route('POST', /^\/__dev\/resume$/, ({ res }) => (engine.resume(), sendJson(res, 200, { paused: false }))),
    route('POST', /^\/__dev\/fail-publish$/, async ({ req, res }) => {
      const text = (await readBody(req)).toString('utf8').trim();
      let count: unknown = 1;
      try {
        if (text) count = (JSON.parse(text) as { count?: unknown }).count ?? 1;
      } catch {
        throw new BadRequest('fail-publish body must be JSON like {"count": 2}');
      }
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
        throw new BadRequest('fail-publish "count" must be a non-negative integer');
      setFailPublishes(count);
      sendJson(res, 200, { failPublish: count });
    }),
    // Cron has minute resolution; this publishes a schedule's message now, exactly as a tick would.
    route('POST', /^\/__dev\/schedules\/([^/]+)\/trigger$/, ({ res, match }) => {
      const messageId = scheduler.fire(decodeSegment(match[1] ?? ''));
      if (!messageId) throw new HttpError(404, 'schedule not found');
      sendJson(res, 200, { messageId });
    }),
  ];
}
