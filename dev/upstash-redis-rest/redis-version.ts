import type { Redis } from './ioredis.js';

/**
 * The bridge passes commands to whatever Redis it was given; Upstash runs a recent one. When the
 * local Redis does not know a command `@upstash/redis` can send because it is too old (or lacks a
 * module), "unknown command" would read like a bridge bug, so the error says what is missing.
 */
const INTRODUCED = [
  [
    '6.2.0',
    [
      'getdel',
      'getex',
      'copy',
      'lmove',
      'blmove',
      'zrangestore',
      'zrandmember',
      'hrandfield',
      'smismember',
      'zdiff',
      'zdiffstore',
      'zinter',
      'zunion',
      'zmscore',
      'geosearch',
      'geosearchstore',
      'xautoclaim',
    ],
  ],
  [
    '7.0.0',
    [
      'lmpop',
      'blmpop',
      'zmpop',
      'bzmpop',
      'sintercard',
      'zintercard',
      'expiretime',
      'pexpiretime',
      'eval_ro',
      'evalsha_ro',
      'function',
      'fcall',
      'fcall_ro',
      'lcs',
    ],
  ],
  ['7.2.0', ['waitaof']],
  // Hash-field expiry.
  [
    '7.4.0',
    ['hexpire', 'hexpireat', 'hexpiretime', 'hpersist', 'hpexpire', 'hpexpireat', 'hpexpiretime', 'hpttl', 'httl'],
  ],
  ['8.0.0', ['hgetdel', 'hgetex', 'hsetex']],
  ['8.2.0', ['xackdel', 'xdelex']],
] as const;
const MIN_VERSION: Record<string, string> = Object.fromEntries(
  INTRODUCED.flatMap(([version, names]) => names.map((name) => [name, version])),
);

/** `redis_version` from INFO server, e.g. "7.0.15". */
export async function readRedisVersion(redis: Redis): Promise<string> {
  try {
    return /^redis_version:(\S+)/m.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown'; // INFO renamed or refused: the bridge still works, it just cannot explain versions
  }
}

function older(version: string, than: string): boolean {
  const a = version.split('.').map(Number);
  const b = than.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const [x = 0, y = 0] = [a[i], b[i]];
    if (Number.isNaN(x)) return false; // unknown version: claim nothing
    if (x !== y) return x < y;
  }
  return false;
}

/** What `@upstash/redis` can send that the given Redis lacks, for `npm start` to say up front. */
export function commandsNewerThan(version: string): string {
  return INTRODUCED.filter(([since]) => older(version, since))
    .map(([since, names]) => `${names.map((n) => n.toUpperCase()).join(' ')} (Redis ${since})`)
    .join('; ');
}

/** Redis's error text, or a clearer one when the command is unknown only because the local Redis is too old. */
export function explainRedisError(message: string, localVersion: string): string {
  // Redis 6.2+ quotes the name with '…', older versions with `…`.
  const name = /^ERR unknown command ['`]([^'`]+)['`]/i.exec(message)?.[1];
  if (name === undefined) return message;
  const lower = name.toLowerCase();
  const upper = name.toUpperCase();
  if (lower.startsWith('json.')) {
    return `ERR ${upper} needs the RedisJSON module, which Upstash has built in and the local Redis ${localVersion} behind this REST stand-in lacks (Redis said: ${message})`;
  }
  const needs = MIN_VERSION[lower];
  if (needs === undefined || !older(localVersion, needs)) return message;
  return `ERR ${upper} needs Redis ${needs} or newer; Upstash supports it, but the local Redis behind this REST stand-in is ${localVersion}. Point REDIS_URL at a Redis ${needs}+ to use it (Redis said: ${message})`;
}
