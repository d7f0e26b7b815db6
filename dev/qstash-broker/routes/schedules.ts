import { callerIp, decodeSegment, HttpError, readBody, route, sendJson, webHeaders, type Route } from '../http.js';
import { BadRequest, NotOffered, parseDestination, parsePublishHeaders } from '../parse.js';
import type { BrokerParts } from './parts.js';

/**
 * POST /v2/schedules/{destination} (create or, with Upstash-Schedule-Id, update), GET /v2/schedules,
 * GET|DELETE /v2/schedules/{id}, PATCH|POST /v2/schedules/{id}/pause|resume (the client uses
 * PATCH, the API reference POST).
 */
export function scheduleRoutes({ scheduler }: BrokerParts): Route[] {
  const id = (raw: string | undefined) => decodeSegment(raw ?? '');
  return [
    route(['PATCH', 'POST'], /^\/v2\/schedules\/([^/]+)\/(pause|resume)$/, ({ res, match }) => {
      if (!scheduler.setPaused(id(match[1]), match[2] === 'pause')) throw new HttpError(404, 'schedule not found');
      sendJson(res, 200, {});
    }),
    route(
      'POST',
      /^\/v2\/schedules\/(.+)$/s,
      async ({ req, res, match }) => {
        const headers = webHeaders(req);
        const cron = headers.get('upstash-cron');
        if (cron === null) throw new BadRequest('missing Upstash-Cron header (e.g. "*/5 * * * *")');
        if (headers.has('upstash-queue-name')) {
          throw new NotOffered(
            'Upstash-Queue-Name: queues are not offered by the local QStash stand-in (dev/qstash-broker.ts); create the schedule without a queue',
          );
        }
        const raw = match[1] ?? '';
        const destination = parseDestination(raw.includes('://') ? raw : decodeSegment(raw));
        const spec = parsePublishHeaders(headers);
        const body = await readBody(req);
        const scheduleId = scheduler.upsert({
          scheduleId: headers.get('upstash-schedule-id') ?? undefined,
          cron,
          destination,
          spec,
          body,
          callerIp: callerIp(req),
        });
        sendJson(res, 200, { scheduleId });
      },
      true,
    ),
    route('GET', /^\/v2\/schedules$/, ({ res }) => sendJson(res, 200, scheduler.list())),
    route('GET', /^\/v2\/schedules\/([^/]+)$/, ({ res, match }) => {
      const view = scheduler.get(id(match[1]));
      if (!view) throw new HttpError(404, 'schedule not found');
      sendJson(res, 200, view);
    }),
    route('DELETE', /^\/v2\/schedules\/([^/]+)$/, ({ res, match }) => {
      if (!scheduler.delete(id(match[1]))) throw new HttpError(404, 'schedule not found');
      sendJson(res, 200, {});
    }),
  ];
}
