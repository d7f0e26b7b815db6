import { callerIp, decodeSegment, readBody, route, sendJson, webHeaders, type Route } from '../http.js';
import { BadRequest, NotOffered, parseDestination, parsePublishHeaders } from '../parse.js';
import type { BrokerParts } from './parts.js';

/** POST /v2/publish/{destination}, POST /v2/batch, GET /v2/keys. */

interface BatchItem {
  destination: string;
  headers: Headers;
  body: Buffer;
}

function parseBatch(body: Buffer): BatchItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequest('batch body must be a JSON array of {destination, headers?, body?}');
  }
  if (!Array.isArray(parsed)) throw new BadRequest('batch body must be a JSON array of {destination, headers?, body?}');
  return parsed.map((item: unknown, i): BatchItem => {
    if (typeof item !== 'object' || item === null) throw new BadRequest(`batch[${i}] must be an object`);
    const { destination, headers = {}, body = '', queue } = item as Record<string, unknown>;
    if (typeof destination !== 'string') throw new BadRequest(`batch[${i}].destination must be a string`);
    if (queue !== undefined)
      throw new NotOffered(
        `batch[${i}].queue: queues are not offered by the local QStash stand-in (dev/qstash-broker.ts); publish without a queue`,
      );
    if (typeof body !== 'string') throw new BadRequest(`batch[${i}].body must be a string`);
    if (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string')) {
      throw new BadRequest(`batch[${i}].headers must be an object of strings`);
    }
    try {
      return { destination, headers: new Headers(headers as Record<string, string>), body: Buffer.from(body) };
    } catch (err) {
      throw new BadRequest(`batch[${i}].headers: ${(err as Error).message}`);
    }
  });
}

const publishAnswer = (r: { messageId: string; deduplicated: boolean }) =>
  r.deduplicated ? { messageId: r.messageId, deduplicated: true } : { messageId: r.messageId };

export function publishRoutes({ engine, signingKeys, maybeFailPublish }: BrokerParts): Route[] {
  return [
    route(
      'POST',
      /^\/v2\/publish\/(.*)$/s,
      async ({ req, res, match }) => {
        maybeFailPublish();
        const body = await readBody(req);
        const raw = match[1] ?? '';
        // A URL group name may be percent-encoded like any path segment; a URL is appended raw.
        const url = parseDestination(raw.includes('://') ? raw : decodeSegment(raw));
        const r = engine.publish({ url, spec: parsePublishHeaders(webHeaders(req)), body, callerIp: callerIp(req) });
        sendJson(res, r.deduplicated ? 202 : 200, publishAnswer(r));
      },
      true,
    ),
    route('POST', /^\/v2\/batch$/, async ({ req, res }) => {
      maybeFailPublish();
      const items = parseBatch(await readBody(req));
      // Validate everything first so a bad item rejects the whole batch instead of half-publishing it.
      const prepared = items.map((it, i) => {
        try {
          return { url: parseDestination(it.destination), spec: parsePublishHeaders(it.headers), body: it.body };
        } catch (err) {
          if (err instanceof BadRequest) throw new BadRequest(`batch[${i}]: ${err.message}`);
          if (err instanceof NotOffered) throw new NotOffered(`batch[${i}]: ${err.message}`);
          throw err;
        }
      });
      const results = prepared.map((p) => engine.publish({ ...p, callerIp: callerIp(req) }));
      sendJson(res, 200, results.map(publishAnswer));
    }),
    route('GET', /^\/v2\/keys$/, ({ res }) => sendJson(res, 200, signingKeys)),
  ];
}
