import { Client } from '@upstash/qstash';

/**
 * One QStash client per isolate and account (base URL and token). Every turn asked for a
 * publisher and a finish-turn job publisher, and each made a new client: the library reads its
 * environment, checks for a dev server and builds two Headers objects in the constructor — the
 * same work on every request for an answer that only changes with the Worker's variables. The
 * client keeps no per-request state (each publish is its own fetch), so an isolate's requests
 * can share it. Bounded, in case an isolate ever sees many accounts (tests, a key rotation).
 */
const clients = new Map<string, Client>();
const CLIENT_CACHE_LIMIT = 8;

export function qstashClient(config: { qstashUrl: string; qstashToken: string }): Client {
  const id = `${config.qstashUrl}\n${config.qstashToken}`;
  let client = clients.get(id);
  if (!client) {
    if (clients.size >= CLIENT_CACHE_LIMIT) clients.clear();
    client = new Client({ baseUrl: config.qstashUrl, token: config.qstashToken });
    clients.set(id, client);
  }
  return client;
}
