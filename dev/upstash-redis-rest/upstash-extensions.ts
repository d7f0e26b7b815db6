import type { Cmd } from './command-policy.js';

/**
 * Where Upstash answers differently from open-source Redis and `@upstash/redis` relies on it, the
 * bridge rewrites the command into one Redis runs with Upstash's answer. Rewrites are single
 * commands (EVAL), so they behave the same on `/`, in `/pipeline` and inside `/multi-exec`.
 *
 * - `COPY k k` (same source and destination, no DB option): Redis fails with "source and
 *   destination objects are the same"; Upstash answers 0, which the client reports as "NOT_COPIED".
 * - `SCAN cursor … WITHTYPE`: an Upstash extension (the client's `scan(c, { withType: true })`)
 *   answering `[cursor, [key, type, key, type, …]]`; Redis has no WITHTYPE. The script runs the
 *   plain SCAN and asks TYPE for each key it returned, atomically.
 */
const SCAN_WITH_TYPE = `local page = redis.call('SCAN', unpack(ARGV))
local out = {}
for _, key in ipairs(page[2]) do
  out[#out + 1] = key
  out[#out + 1] = redis.call('TYPE', key).ok
end
return {page[1], out}`;

export function withUpstashExtensions(cmd: Cmd): Cmd {
  const [name, ...args] = cmd;
  const lower = name.toLowerCase();
  if (lower === 'copy' && args.length >= 2 && args[0] === args[1] && !args.some((a) => a.toLowerCase() === 'db')) {
    return ['EVAL', 'return 0', '0'];
  }
  if (lower === 'scan') {
    const rest = args.filter((a) => a.toLowerCase() !== 'withtype');
    if (rest.length !== args.length) return ['EVAL', SCAN_WITH_TYPE, '0', ...rest];
  }
  return cmd;
}
