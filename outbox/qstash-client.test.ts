import { describe, expect, it } from 'vitest';
import { qstashClient } from './qstash-client.js';

/** The token a client sends (private in the library's types; read here only to tell the clients apart). */
const tokenOf = (client: object) => (client as { token?: string }).token;

describe('one QStash client per isolate and account', () => {
  const account = { qstashUrl: 'https://qstash.example', qstashToken: 'token-a' };

  it('the same URL and token give the same client (it keeps no per-request state)', () => {
    expect(qstashClient({ ...account })).toBe(qstashClient({ ...account }));
  });

  it('another token or another URL is another client: two accounts never share one', () => {
    const a = qstashClient(account);
    const b = qstashClient({ ...account, qstashToken: 'token-b' });
    const c = qstashClient({ ...account, qstashUrl: 'https://other.example' });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(tokenOf(a)).toBe('token-a');
    expect(tokenOf(b)).toBe('token-b');
  });

  it('past the bound it starts again and still gives each account its own client', () => {
    const tokens = Array.from({ length: 12 }, (_, i) => `token-${i}`);
    const clients = tokens.map((t) => qstashClient({ ...account, qstashToken: t }));
    clients.forEach((client, i) => expect(tokenOf(client)).toBe(tokens[i]));
    expect(qstashClient({ ...account, qstashToken: 'token-11' })).toBe(clients[11]);
  });
});
