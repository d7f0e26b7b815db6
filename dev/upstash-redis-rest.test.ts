import { randomBytes } from 'node:crypto';
import { Redis as IORedis } from 'ioredis';
import { Redis, errors } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_BODY_BYTES, startUpstashRedisRest, type RunningServer } from './upstash-redis-rest.js';

const TOKEN = `test-token-${randomBytes(8).toString('hex')}`;
const P = `test:upr:${randomBytes(6).toString('hex')}:`;

let server: RunningServer;
let redis: Redis;
/** Direct connection to check what the bridge really wrote, and to clean up. */
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

/** Raw request with the headers the client sends, overridable per test. */
function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

async function expectJsonError(res: Response, status: number, pattern: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = (await res.json()) as { error?: unknown };
  expect(body.error).toMatch(pattern);
}

describe('through the real @upstash/redis client', () => {
  it('set with nx+ex returns OK once, then null; ttl is set', async () => {
    expect(await redis.set(`${P}nx`, 'first', { nx: true, ex: 10 })).toBe('OK');
    expect(await redis.set(`${P}nx`, 'second', { nx: true, ex: 10 })).toBeNull();
    expect(await redis.get(`${P}nx`)).toBe('first');
    const ttl = await redis.ttl(`${P}nx`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10);
  });

  it('stores JSON objects that come back parsed', async () => {
    const value = { user: 'ana', tags: ['a', 'b'], n: 3, nested: { ok: true } };
    await redis.set(`${P}json`, value);
    expect(await direct.get(`${P}json`)).toBe(JSON.stringify(value));
    expect(await redis.get(`${P}json`)).toEqual(value);
  });

  it('incr, expire/ttl and del', async () => {
    expect(await redis.incr(`${P}counter`)).toBe(1);
    expect(await redis.incr(`${P}counter`)).toBe(2);
    expect(await redis.expire(`${P}counter`, 100)).toBe(1);
    expect(await redis.ttl(`${P}counter`)).toBeGreaterThan(90);
    expect(await redis.ttl(`${P}missing`)).toBe(-2);
    expect(await redis.del(`${P}counter`, `${P}missing`)).toBe(1);
    expect(await redis.get(`${P}counter`)).toBeNull();
  });

  it('hashes: hset with an object, hgetall, hincrby', async () => {
    expect(await redis.hset(`${P}hash`, { name: 'bob', visits: 1, profile: { lang: 'pt' } })).toBe(3);
    expect(await redis.hincrby(`${P}hash`, 'visits', 5)).toBe(6);
    expect(await redis.hgetall(`${P}hash`)).toEqual({ name: 'bob', visits: 6, profile: { lang: 'pt' } });
    expect(await redis.hgetall(`${P}nohash`)).toBeNull();
  });

  it('lists: lpush, rpush, lrange, ltrim, llen', async () => {
    expect(await redis.rpush(`${P}list`, 'b', 'c')).toBe(2);
    expect(await redis.lpush(`${P}list`, 'a')).toBe(3);
    expect(await redis.rpush(`${P}list`, 'd')).toBe(4);
    expect(await redis.lrange(`${P}list`, 0, -1)).toEqual(['a', 'b', 'c', 'd']);
    expect(await redis.ltrim(`${P}list`, 1, 2)).toBe('OK');
    expect(await redis.llen(`${P}list`)).toBe(2);
    expect(await redis.lrange(`${P}list`, 0, -1)).toEqual(['b', 'c']);
  });

  it('sorted sets: zadd, zrange with scores, by score, zrem', async () => {
    expect(
      await redis.zadd(
        `${P}z`,
        { score: 1, member: 'one' },
        { score: 2.5, member: 'two' },
        { score: 3, member: 'three' },
      ),
    ).toBe(3);
    expect(await redis.zrange(`${P}z`, 0, -1, { withScores: true })).toEqual(['one', 1, 'two', 2.5, 'three', 3]);
    expect(await redis.zrange(`${P}z`, 2, 3, { byScore: true })).toEqual(['two', 'three']);
    expect(await redis.zrange(`${P}z`, '(1', '+inf', { byScore: true, offset: 0, count: 1 })).toEqual(['two']);
    expect(await redis.zscore(`${P}z`, 'two')).toBe(2.5);
    expect(await redis.zrem(`${P}z`, 'two', 'nope')).toBe(1);
    expect(await redis.zrange(`${P}z`, 0, -1)).toEqual(['one', 'three']);
  });

  it('pipeline runs several commands in order and reports per-command errors', async () => {
    const results = await redis.pipeline().set(`${P}p1`, 'x').incr(`${P}p2`).incr(`${P}p2`).get(`${P}p1`).exec();
    expect(results).toEqual(['OK', 1, 2, 'x']);
    const withError = await redis.pipeline().incr(`${P}p1`).get(`${P}p1`).exec({ keepErrors: true });
    expect(withError[0]?.error).toMatch(/not an integer/);
    expect(withError[1]).toEqual({ result: 'x', error: undefined });
    await expect(redis.pipeline().incr(`${P}p1`).exec()).rejects.toThrow(/Command 1 \[ INCR \] failed/i);
  });

  it('multi is atomic: 50 concurrent transactions keep two counters equal at every read', async () => {
    const a = `${P}atomic:a`;
    const b = `${P}atomic:b`;
    let reading = true;
    const reads: [string | null, string | null][] = [];
    const reader = (async () => {
      while (reading) reads.push((await direct.mget(a, b)) as [string | null, string | null]);
    })();
    // A ~1 ms Lua busy loop between the two INCRs gives a non-atomic bridge a wide window to be caught in.
    const busy = 'local i = 0 while i < 100000 do i = i + 1 end return i';
    const results = await Promise.all(
      Array.from({ length: 50 }, () => redis.multi().incr(a).eval(busy, [], []).incr(b).exec()),
    );
    reading = false;
    await reader;
    for (const [x, , y] of results) expect(x).toBe(y);
    expect(new Set(results.map(([x]) => x)).size).toBe(50);
    expect(await redis.mget(a, b)).toEqual([50, 50]);
    expect(reads.length).toBeGreaterThan(0);
    for (const [x, y] of reads) expect(x).toBe(y);
  });

  it('eval runs Lua with keys and args', async () => {
    await redis.set(`${P}lua`, 'v1');
    const out = await redis.eval('return {KEYS[1], ARGV[1], redis.call("GET", KEYS[1]), 42}', [`${P}lua`], ['arg']);
    expect(out).toEqual([`${P}lua`, 'arg', 'v1', 42]);
  });

  it('evalsha of an unknown script surfaces NOSCRIPT as UpstashError', async () => {
    const err = await redis.evalsha('0'.repeat(40), [], []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.UpstashError);
    expect((err as Error).message).toMatch(/NOSCRIPT/);
  });

  it('createScript().exec() falls back from EVALSHA to EVAL, after which EVALSHA works', async () => {
    const src = `return "script-${randomBytes(6).toString('hex')}:" .. ARGV[1]`;
    const script = redis.createScript<string>(src);
    await expect(script.evalsha([], ['x'])).rejects.toThrow(/NOSCRIPT/);
    expect(await script.exec([], ['a'])).toMatch(/^script-\w+:a$/);
    // The EVAL fallback cached the script in Redis, so a bare EVALSHA now succeeds.
    expect(await script.evalsha([], ['b'])).toMatch(/:b$/);
  });

  // Values the client would JSON.parse (e.g. '"x"' or '12') come back parsed from real Upstash too, so they are left out.
  it('unicode and binary-looking values round-trip in both encodings', async () => {
    const plain = new Redis({ url: server.url, token: TOKEN, responseEncoding: false, enableTelemetry: false });
    const values = [
      'héllo 👋🏽 世界',
      'line1\nline2\r\n\ttab',
      'SGVsbG8gd29ybGQ=',
      'OK',
      '',
      '{"half": json',
      'a\u0000b',
      '𝄞 \u2028',
    ];
    for (const [i, value] of values.entries()) {
      await redis.set(`${P}uni:${i}`, value);
      expect(await direct.get(`${P}uni:${i}`)).toBe(value);
      expect(await redis.get(`${P}uni:${i}`)).toBe(value);
      expect(await plain.get(`${P}uni:${i}`)).toBe(value);
    }
    expect(await redis.mget(...values.map((_, i) => `${P}uni:${i}`))).toEqual(values);
    expect(await plain.lrange(`${P}nolist`, 0, -1)).toEqual([]);
  });

  it('auto-pipelining client batches concurrent commands correctly', async () => {
    const auto = new Redis({ url: server.url, token: TOKEN, enableAutoPipelining: true, enableTelemetry: false });
    const [s1, s2, , g1, g2, h] = await Promise.all([
      auto.set(`${P}auto1`, { a: 1 }),
      auto.set(`${P}auto2`, 'two'),
      auto.hset(`${P}autoh`, { f: 'v' }),
      auto.get(`${P}auto1`),
      auto.get(`${P}auto2`),
      auto.hget(`${P}autoh`, 'f'),
    ]);
    expect([s1, s2, g1, g2, h]).toEqual(['OK', 'OK', { a: 1 }, 'two', 'v']);
  });

  it('rejects with UpstashError on a wrong token', async () => {
    const bad = new Redis({ url: server.url, token: 'wrong', enableTelemetry: false, retry: false });
    const err = await bad.set(`${P}never`, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.UpstashError);
    expect((err as Error).message).toMatch(/invalid token/i);
    expect(await direct.exists(`${P}never`)).toBe(0);
  });
});

describe('raw wire format', () => {
  it('base64 mode encodes every string, status replies included; numbers and null untouched', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const enc = { 'upstash-encoding': 'base64' };
    expect(await (await post('/', ['set', `${P}raw`, 'héllo'], enc)).json()).toEqual({ result: b64('OK') });
    expect(await (await post('/', ['get', `${P}raw`], enc)).json()).toEqual({ result: b64('héllo') });
    expect(await (await post('/', ['get', `${P}raw`])).json()).toEqual({ result: 'héllo' });
    expect(await (await post('/', ['get', `${P}none`], enc)).json()).toEqual({ result: null });
    expect(
      await (
        await post('/pipeline', [['ping'], ['incrby', `${P}rawn`, 7], ['mget', `${P}raw`, `${P}none`]], enc)
      ).json(),
    ).toEqual([{ result: b64('PONG') }, { result: 7 }, { result: [b64('héllo'), null] }]);
  });

  it('hgetall stays a flat array on the wire (no ioredis object rewrite)', async () => {
    await direct.hset(`${P}rawh`, 'f1', 'v1', 'f2', 'v2');
    expect(await (await post('/', ['hgetall', `${P}rawh`])).json()).toEqual({ result: ['f1', 'v1', 'f2', 'v2'] });
    expect(await (await post('/', ['HGETALL', `${P}rawh`])).json()).toEqual({ result: ['f1', 'v1', 'f2', 'v2'] });
  });

  it('coerces number and boolean args to strings', async () => {
    expect(await (await post('/', ['set', `${P}coerce`, true, 'ex', 100])).json()).toEqual({ result: 'OK' });
    expect(await direct.get(`${P}coerce`)).toBe('true');
    expect(await direct.ttl(`${P}coerce`)).toBeGreaterThan(90);
  });

  it('a Redis error on / is 400 with Redis text', async () => {
    await direct.set(`${P}str`, 'x');
    await expectJsonError(await post('/', ['lpush', `${P}str`, 'y']), 400, /^WRONGTYPE/);
    await expectJsonError(await post('/', ['nosuchcmd', 'a']), 400, /^ERR unknown command 'nosuchcmd'/);
  });

  it('multi-exec: runtime errors are per item, queue-time errors abort with 400 and run nothing', async () => {
    await direct.set(`${P}mx`, 'text');
    const res = await post('/multi-exec', [
      ['incr', `${P}mxn`],
      ['incr', `${P}mx`],
      ['get', `${P}mx`],
    ]);
    expect(res.status).toBe(200);
    const items = (await res.json()) as { result?: unknown; error?: string }[];
    expect(items[0]).toEqual({ result: 1 });
    expect(items[1]?.error).toMatch(/not an integer/);
    expect(items[2]).toEqual({ result: 'text' });

    await expectJsonError(
      await post('/multi-exec', [['incr', `${P}mxn`], ['nosuchcmd']]),
      400,
      /^EXECABORT.*unknown command/,
    );
    expect(await direct.get(`${P}mxn`)).toBe('1');
  });
});

describe('refused commands', () => {
  it('connection-state and streaming commands get 400 on /', async () => {
    for (const cmd of [
      ['subscribe', 'ch'],
      ['monitor'],
      ['select', '1'],
      ['quit'],
      ['multi'],
      ['exec'],
      ['watch', 'k'],
      ['client', 'reply', 'off'],
    ]) {
      await expectJsonError(await post('/', cmd), 400, /not supported over the REST API/);
    }
    expect(await (await post('/', ['ping'])).json()).toEqual({ result: 'PONG' });
  });

  it('blocking commands: 0 timeout refused, finite timeout allowed without stalling others', async () => {
    await expectJsonError(await post('/', ['blpop', `${P}q`, 0]), 400, /positive timeout/);
    const started = Date.now();
    const blocked = post('/', ['blpop', `${P}q`, '0.5']);
    // The shared connection must stay free while BLPOP waits on its own connection.
    expect(await (await post('/', ['ping'])).json()).toEqual({ result: 'PONG' });
    expect(Date.now() - started).toBeLessThan(400);
    expect(await (await blocked).json()).toEqual({ result: null });

    const waiting = post('/', ['brpop', `${P}q2`, 5]);
    await new Promise((r) => setTimeout(r, 100));
    await redis.rpush(`${P}q2`, 'job');
    expect(await (await waiting).json()).toEqual({ result: [`${P}q2`, 'job'] });
  });

  it('a refused command in a pipeline fails alone; in multi-exec it discards the transaction', async () => {
    const res = await post('/pipeline', [
      ['set', `${P}pr`, '1'],
      ['subscribe', 'ch'],
      ['get', `${P}pr`],
    ]);
    expect(res.status).toBe(200);
    const items = (await res.json()) as { result?: unknown; error?: string }[];
    expect(items[0]).toEqual({ result: 'OK' });
    expect(items[1]?.error).toMatch(/SUBSCRIBE is not supported/);
    expect(items[2]).toEqual({ result: '1' });

    await expectJsonError(
      await post('/multi-exec', [
        ['set', `${P}mr`, '1'],
        ['select', '2'],
      ]),
      400,
      /SELECT.*transaction discarded/,
    );
    expect(await direct.exists(`${P}mr`)).toBe(0);
  });
});

describe('bad requests always get JSON', () => {
  it('401 for a missing, malformed or wrong token', async () => {
    await expectJsonError(await post('/', ['ping'], { authorization: '' }), 401, /missing Authorization/);
    await expectJsonError(await post('/', ['ping'], { authorization: `Basic ${TOKEN}` }), 401, /malformed/);
    await expectJsonError(await post('/', ['ping'], { authorization: `Bearer ${TOKEN}x` }), 401, /invalid token/);
    await expectJsonError(await post('/pipeline', [['ping']], { authorization: 'Bearer short' }), 401, /invalid token/);
  });

  it('400 for malformed JSON, non-array bodies, bad args and wrong content-type', async () => {
    await expectJsonError(await post('/', '["set", "k"'), 400, /Invalid JSON/);
    await expectJsonError(await post('/', { cmd: 'get' }), 400, /must be a JSON array/);
    await expectJsonError(await post('/', []), 400, /command name/);
    await expectJsonError(await post('/', ['set', 'k', { a: 1 }]), 400, /argument 2 .* object/);
    await expectJsonError(await post('/pipeline', ['get', 'k']), 400, /command 1 must be a JSON array/);
    await expectJsonError(await post('/pipeline', []), 400, /at least one command/);
    await expectJsonError(await post('/', ['ping'], { 'content-type': 'text/plain' }), 400, /content type/i);
    await expectJsonError(await post('/', ['ping'], { 'upstash-response-format': 'resp2' }), 400, /not supported/);
  });

  it('404 for unknown paths and 405 for other methods', async () => {
    await expectJsonError(await fetch(`${server.url}/nope`), 404, /not found/);
    await expectJsonError(await post('/set/k/v', []), 404, /not found/);
    const get = await fetch(`${server.url}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.headers.get('allow')).toBe('POST');
    await expectJsonError(get, 405, /use POST/);
  });

  it('413 for oversized bodies, declared or streamed, and the server keeps serving', async () => {
    const huge = `["set","${P}huge","${'x'.repeat(MAX_BODY_BYTES)}"]`;
    await expectJsonError(await post('/', huge), 413, /exceeds/);
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 12) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await expectJsonError(streamed, 413, /exceeds/);
    expect(await direct.exists(`${P}huge`)).toBe(0);
    expect(await (await post('/', ['ping'])).json()).toEqual({ result: 'PONG' });
  });

  it('garbage bytes get a JSON 400, never a crash', async () => {
    await expectJsonError(await post('/', randomBytes(4096)), 400, /Invalid JSON/);
    await expectJsonError(await post('/', 'null'), 400, /must be a JSON array/);
    await expectJsonError(await post('/', '[null]'), 400, /command name/);
    expect(await redis.ping()).toBe('PONG');
  });
});

describe('startup', () => {
  it('fails fast with a clear error when Redis is unreachable', async () => {
    const started = Date.now();
    await expect(startUpstashRedisRest({ redisUrl: 'redis://127.0.0.1:1', token: TOKEN })).rejects.toThrow(
      /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses an empty token', async () => {
    await expect(startUpstashRedisRest({ redisUrl: inject('redisUrl'), token: '' })).rejects.toThrow(/token/);
  });
});

describe('Upstash-only Lua shebang flags', () => {
  const script = '#!lua flags=allow-key-locking\nreturn redis.call("INCR", KEYS[1])';
  it('accepts allow-key-locking as Upstash does (Redis alone refuses it), through EVAL and then EVALSHA', async () => {
    await expect(direct.eval(script, 1, `${P}lock`)).rejects.toThrow(/Unexpected flag/);
    const s = redis.createScript<number>(script);
    expect(await s.eval([`${P}lock`], [])).toBe(1);
    // The client's hash is of the original text; the bridge maps it to the script Redis holds.
    expect(await s.evalsha([`${P}lock`], [])).toBe(2);
    expect(await s.exec([`${P}lock`], [])).toBe(3);
  });
  it('keeps the flags Redis knows', async () => {
    expect(await redis.eval('#!lua flags=no-writes, allow-key-locking\nreturn 7', [], [])).toBe(7);
    await expect(
      redis.eval('#!lua flags=no-writes,allow-key-locking\nreturn redis.call("SET", KEYS[1], 1)', [`${P}nw`], []),
    ).rejects.toThrow(/Write commands are not allowed/);
  });
});

describe('GET /__dev/usage (dev only): commands counted as Upstash bills them', () => {
  const usage = async () =>
    (await (await fetch(`${server.url}/__dev/usage`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      requests: number;
      commands: number;
    };

  it('a single command is one; each command of a pipeline or a transaction is one; a script is one; the token is required', async () => {
    const before = await usage();
    await redis.set(`${P}u1`, 'x');
    await redis.pipeline().set(`${P}u2`, 'y').get(`${P}u2`).incr(`${P}u3`).exec();
    await redis.multi().set(`${P}u4`, 'z').get(`${P}u4`).exec();
    await redis.eval("redis.call('SET', KEYS[1], 'a'); redis.call('GET', KEYS[1]); return 1", [`${P}u5`], []);
    const after = await usage();
    expect(after.commands - before.commands).toBe(1 + 3 + 2 + 1);
    expect(after.requests - before.requests).toBe(4);
    expect((await fetch(`${server.url}/__dev/usage`)).status).toBe(401);
  });
});
