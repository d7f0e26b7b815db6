import { randomBytes } from 'node:crypto';
import { Redis as IORedis } from 'ioredis';
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startUpstashRedisRest, type RunningServer } from './upstash-redis-rest.js';
import { commandsNewerThan, explainRedisError } from './upstash-redis-rest/redis-version.js';

/** Where Upstash answers differently from plain Redis, found by running `@upstash/redis`'s own command tests. */

const TOKEN = `test-token-${randomBytes(8).toString('hex')}`;
const P = `test:uprp:${randomBytes(6).toString('hex')}:`;

let server: RunningServer;
let redis: Redis;
let direct: IORedis;

beforeAll(async () => {
  server = await startUpstashRedisRest({ redisUrl: inject('redisUrl'), token: TOKEN, port: 0 });
  redis = new Redis({ url: server.url, token: TOKEN, enableTelemetry: false });
  direct = new IORedis(inject('redisUrl'), { protocol: 2 });
});

afterAll(async () => {
  const keys = await direct.keys(`${P}*`);
  if (keys.length) await direct.del(...keys);
  await direct.quit();
  await server.close();
});

/** Orders "7.0.15" against "7.4.0" the way the bridge does, for tests that depend on the local Redis. */
function atLeast(version: string, min: string): boolean {
  const [a, b] = [version, min].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if ((a![i] ?? 0) !== (b![i] ?? 0)) return (a![i] ?? 0) > (b![i] ?? 0);
  return true;
}

describe('read-your-writes sync token', () => {
  it('answers a fresh upstash-sync-token that the client stores and that moves with every write', async () => {
    const fresh = new Redis({ url: server.url, token: TOKEN, enableTelemetry: false });
    expect(fresh.readYourWritesSyncToken).toBe('');
    await fresh.set(`${P}ryw`, 'a');
    const first = fresh.readYourWritesSyncToken;
    expect(typeof first).toBe('string');
    expect(first).not.toBe('');
    await fresh.set(`${P}ryw`, 'b');
    expect(fresh.readYourWritesSyncToken).not.toBe(first);
    const beforePipeline = fresh.readYourWritesSyncToken;
    await fresh.pipeline().set(`${P}ryw1`, 1).set(`${P}ryw2`, 2).exec();
    expect(fresh.readYourWritesSyncToken).not.toBe(beforePipeline);
  });

  it('a token set by hand (Upstash tolerates one) does not fail the next request', async () => {
    const other = new Redis({ url: server.url, token: TOKEN, enableTelemetry: false });
    other.readYourWritesSyncToken = 'my-own-token';
    expect(await other.set(`${P}ryw-hand`, 'x')).toBe('OK');
    expect(await other.get(`${P}ryw-hand`)).toBe('x');
  });

  it('readYourWrites: false leaves the client token untouched', async () => {
    const optOut = new Redis({ url: server.url, token: TOKEN, enableTelemetry: false, readYourWrites: false });
    const before = optOut.readYourWritesSyncToken;
    await optOut.set(`${P}ryw-off`, 'x');
    expect(optOut.readYourWritesSyncToken).toBe(before);
  });
});

describe('COPY with the same source and destination', () => {
  it('answers NOT_COPIED as Upstash does (Redis alone errors), on /, in a pipeline and in a transaction', async () => {
    await redis.set(`${P}copy`, 'v');
    await expect(direct.copy(`${P}copy`, `${P}copy`)).rejects.toThrow(/same/);
    expect(await redis.copy(`${P}copy`, `${P}copy`)).toBe('NOT_COPIED');
    expect(await redis.copy(`${P}copy`, `${P}copy`, { replace: true })).toBe('NOT_COPIED');
    expect(await redis.pipeline().copy(`${P}copy`, `${P}copy`).get(`${P}copy`).exec()).toEqual(['NOT_COPIED', 'v']);
    expect(await redis.multi().copy(`${P}copy`, `${P}copy`).get(`${P}copy`).exec()).toEqual(['NOT_COPIED', 'v']);
  });

  it('other copies still go to Redis: COPIED, NOT_COPIED onto an existing key, COPIED with replace', async () => {
    await redis.set(`${P}copy-src`, 'one');
    expect(await redis.copy(`${P}copy-src`, `${P}copy-dst`)).toBe('COPIED');
    expect(await direct.get(`${P}copy-dst`)).toBe('one');
    await redis.set(`${P}copy-src`, 'two');
    expect(await redis.copy(`${P}copy-src`, `${P}copy-dst`)).toBe('NOT_COPIED');
    expect(await redis.copy(`${P}copy-src`, `${P}copy-dst`, { replace: true })).toBe('COPIED');
    expect(await direct.get(`${P}copy-dst`)).toBe('two');
    expect(await redis.copy(`${P}copy-missing`, `${P}copy-dst2`)).toBe('NOT_COPIED');
  });
});

describe('SCAN … WITHTYPE (an Upstash extension)', () => {
  async function scanAll(scan: (cursor: string) => Promise<[string, { key: string; type: string }[]]>) {
    const found: { key: string; type: string }[] = [];
    let cursor = '0';
    do {
      const [next, items] = await scan(cursor);
      found.push(...items);
      cursor = next;
    } while (cursor !== '0');
    return found.sort((a, b) => a.key.localeCompare(b.key));
  }

  it('returns each key with its type, through scan() and inside a transaction', async () => {
    await redis.set(`${P}wt:a`, 'v');
    await redis.zadd(`${P}wt:b`, { score: 1, member: 'm' });
    await redis.hset(`${P}wt:c`, { f: 'v' });
    const expected = [
      { key: `${P}wt:a`, type: 'string' },
      { key: `${P}wt:b`, type: 'zset' },
      { key: `${P}wt:c`, type: 'hash' },
    ];
    expect(await scanAll((c) => redis.scan(c, { match: `${P}wt:*`, count: 1000, withType: true }))).toEqual(expected);
    const inMulti = await scanAll(
      async (c) =>
        (
          await redis
            .multi()
            .scan(c, { match: `${P}wt:*`, count: 1000, withType: true })
            .exec()
        )[0],
    );
    expect(inMulti).toEqual(expected);
  });

  it('plain SCAN and SCAN … TYPE are untouched', async () => {
    await redis.set(`${P}pt:s`, 'v');
    await redis.lpush(`${P}pt:l`, 'v');
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, { match: `${P}pt:*`, count: 1000, type: 'list' });
      keys.push(...page);
      cursor = next;
    } while (cursor !== '0');
    expect(keys).toEqual([`${P}pt:l`]);
  });
});

describe('commands the local Redis is too old for', () => {
  it('reports the version of the Redis behind the bridge', async () => {
    const info = await direct.info('server');
    expect(server.redisVersion).toBe(/^redis_version:(\S+)/m.exec(info)?.[1]);
  });

  it('HEXPIRE (7.4) and HGETDEL (8.0): an error naming the missing version, or the real answer on a new enough Redis', async () => {
    // Without auto-pipelining: through /pipeline the client deserializes an HGETDEL error as if it
    // were a result and throws a TypeError of its own, hiding the bridge's message.
    const redis = new Redis({ url: server.url, token: TOKEN, enableTelemetry: false, enableAutoPipelining: false });
    await redis.hset(`${P}hfe`, { f: 'v', g: 'w' });
    const hexpire = redis.hexpire(`${P}hfe`, 'f', 100);
    if (atLeast(server.redisVersion, '7.4.0')) expect(await hexpire).toEqual([1]);
    else
      await expect(hexpire).rejects.toThrow(
        new RegExp(
          `HEXPIRE needs Redis 7\\.4\\.0 or newer.*local Redis .* is ${server.redisVersion.replace(/\./g, '\\.')}`,
        ),
      );
    const hgetdel = redis.hgetdel(`${P}hfe`, 'g');
    if (atLeast(server.redisVersion, '8.0.0')) expect(await hgetdel).toEqual({ g: 'w' });
    else await expect(hgetdel).rejects.toThrow(/HGETDEL needs Redis 8\.0\.0 or newer/);
  });

  it('explains unknown commands by version, leaves everything else as Redis said it', () => {
    const unknown = (name: string) => `ERR unknown command '${name}', with args beginning with: 'k' `;
    expect(explainRedisError(unknown('hexpire'), '7.0.15')).toMatch(
      /^ERR HEXPIRE needs Redis 7\.4\.0 or newer; .* is 7\.0\.15\. .*Redis said: ERR unknown command 'hexpire'/,
    );
    expect(explainRedisError(unknown('hsetex'), '7.4.2')).toMatch(/^ERR HSETEX needs Redis 8\.0\.0 /);
    expect(explainRedisError('ERR unknown command `getdel`, with args beginning with: ', '6.0.9')).toMatch(
      /^ERR GETDEL needs Redis 6\.2\.0 /,
    );
    expect(explainRedisError(unknown('json.set'), '7.0.15')).toMatch(/^ERR JSON\.SET needs the RedisJSON module/);
    // Known to be new enough, or not a command we know about: Redis's own words.
    expect(explainRedisError(unknown('hexpire'), '8.0.1')).toBe(unknown('hexpire'));
    expect(explainRedisError(unknown('nosuchcmd'), '7.0.15')).toBe(unknown('nosuchcmd'));
    expect(explainRedisError('WRONGTYPE Operation against a key holding the wrong kind of value', '7.0.15')).toMatch(
      /^WRONGTYPE/,
    );
  });

  it('lists, for npm start, what a given Redis version lacks', () => {
    expect(commandsNewerThan('7.0.15')).toMatch(
      /^WAITAOF \(Redis 7\.2\.0\); HEXPIRE .* HTTL \(Redis 7\.4\.0\); HGETDEL HGETEX HSETEX \(Redis 8\.0\.0\); XACKDEL XDELEX \(Redis 8\.2\.0\)$/,
    );
    expect(commandsNewerThan('8.0.2')).toBe('XACKDEL XDELEX (Redis 8.2.0)');
    expect(commandsNewerThan('8.2.1')).toBe('');
  });

  it('in a pipeline and a transaction the explanation replaces the bare unknown-command error', async () => {
    const res = await fetch(`${server.url}/pipeline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify([['ping'], ['hgetdel', `${P}hfe2`, 'fields', '1', 'f']]),
    });
    const items = (await res.json()) as { result?: unknown; error?: string }[];
    expect(items[0]).toEqual({ result: 'PONG' });
    if (!atLeast(server.redisVersion, '8.0.0')) expect(items[1]?.error).toMatch(/HGETDEL needs Redis 8\.0\.0/);
    const multi = await fetch(`${server.url}/multi-exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify([['hsetex', `${P}hfe2`, 'EX', '10', 'FIELDS', '1', 'f', 'v']]),
    });
    if (!atLeast(server.redisVersion, '8.0.0')) {
      expect(multi.status).toBe(400);
      expect(((await multi.json()) as { error: string }).error).toMatch(/EXECABORT.*HSETEX needs Redis 8\.0\.0/);
    } else expect(multi.status).toBe(200);
  });
});
