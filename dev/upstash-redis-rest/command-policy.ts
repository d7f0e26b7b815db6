/** A command as the bridge runs it: name first, every argument already a string. */
export type Cmd = [name: string, ...args: string[]];

/** Commands that only make sense on a long-lived connection, or that would break the shared one. */
const REFUSED = new Map(
  (
    [
      [
        'pub/sub needs a persistent connection',
        ['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe'],
      ],
      ['it streams forever', ['monitor']],
      [
        'it changes connection state; the REST endpoint is one database on a shared connection',
        ['select', 'swapdb', 'hello', 'reset', 'quit'],
      ],
      ['authentication is the bearer token', ['auth']],
      ['use POST /multi-exec', ['multi', 'exec', 'discard']],
      ['WATCH needs connection state across requests', ['watch', 'unwatch']],
      ['server administration is not exposed', ['shutdown', 'replicaof', 'slaveof', 'failover', 'sync', 'psync']],
    ] as const
  ).flatMap(([why, names]) => names.map((name): [string, string] => [name, why])),
);
/** CLIENT subcommands that would silence, rename or kill the bridge's own connections. */
const REFUSED_CLIENT_SUBCOMMANDS = new Set([
  'reply',
  'kill',
  'pause',
  'setname',
  'setinfo',
  'tracking',
  'caching',
  'no-evict',
  'no-touch',
]);

/** Timeout in seconds (ms for WAIT/XREAD, only compared with 0) of a blocking command, or undefined. */
export function blockingTimeout([name, ...args]: Cmd): number | undefined {
  const lower = name.toLowerCase();
  if (['blpop', 'brpop', 'brpoplpush', 'blmove', 'bzpopmin', 'bzpopmax', 'wait', 'waitaof'].includes(lower))
    return Number(args.at(-1));
  if (lower === 'blmpop' || lower === 'bzmpop') return Number(args[0]);
  if (lower === 'xread' || lower === 'xreadgroup') {
    const at = args.findIndex((a) => a.toLowerCase() === 'block');
    return at < 0 ? undefined : Number(args[at + 1]);
  }
  return undefined;
}

/**
 * Why a command is refused, or undefined. Blocking commands are allowed with a finite timeout (they
 * run on a borrowed connection), but a 0 timeout would hold the HTTP request open forever, so it is
 * refused; inside MULTI Redis never blocks, so there any timeout is fine.
 */
export function refusal(cmd: Cmd, inTransaction: boolean): string | undefined {
  const lower = cmd[0].toLowerCase();
  const why =
    REFUSED.get(lower) ??
    (lower === 'client' && REFUSED_CLIENT_SUBCOMMANDS.has((cmd[1] ?? '').toLowerCase())
      ? 'it would alter the bridge connection'
      : undefined) ??
    (!inTransaction && blockingTimeout(cmd) === 0
      ? 'a blocking command needs a positive timeout over HTTP'
      : undefined);
  return why && `ERR ${cmd[0].toUpperCase()} is not supported over the REST API: ${why}`;
}
