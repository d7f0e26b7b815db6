import { route, type Route } from '../http.js';
import { NotOffered } from '../parse.js';

/**
 * Endpoints `@upstash/qstash` calls that this stand-in does not implement. They answer 501 naming
 * the endpoint and the feature, so a developer is not left guessing at a bare 404.
 */
const FEATURES: [RegExp, string][] = [
  [/^\/v2\/(queues|enqueue)(\/|$)/, 'queues'],
  [/^\/v2\/topics(\/|$)/, 'URL groups (topics)'],
  [
    /^\/v2\/(flowControl|globalParallelism)(\/|$)/,
    'flow-control management API (the parallelism and rate of flowControl on publish are applied)',
  ],
  [/^\/v2\/(workflows|wait|notify)(\/|$)/, 'workflows'],
  [/^\/v2\/keys\/rotate$/, 'signing-key rotation'],
  [/^\/llm\//, 'LLM API'],
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function notOfferedRoutes(): Route[] {
  return FEATURES.map(([pattern, feature]) =>
    route(METHODS, pattern, ({ req }) => {
      const path = (req.url ?? '').split('?')[0];
      throw new NotOffered(
        `${req.method} ${path} is not offered by the local QStash stand-in (dev/qstash-broker.ts): no ${feature}. It implements publish, batch, messages, the DLQ, schedules and logs (/v2/events).`,
      );
    }),
  );
}
