import { createHash } from 'node:crypto';

/**
 * Upstash accepts the Lua shebang flag `allow-key-locking` (`#!lua flags=allow-key-locking`,
 * which `@upstash/ratelimit` sends); open-source Redis refuses it ("Unexpected flag in script
 * shebang"). To serve the unchanged client as Upstash would, the bridge drops that flag before
 * Redis sees the script and maps the client's EVALSHA hash (of the original text) to the hash of
 * the script Redis holds.
 */
const UPSTASH_ONLY_FLAGS = new Set(['allow-key-locking']);
const shaOfOriginal = new Map<string, string>();

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

export function withoutUpstashOnlyFlags(script: string): string {
  const match = /^#!lua(?:[ \t]+flags=([^\n]*))?\n/.exec(script);
  if (!match) return script;
  const flags = (match[1] ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f && !UPSTASH_ONLY_FLAGS.has(f));
  const body = script.slice(match[0].length);
  return flags.length ? `#!lua flags=${flags.join(',')}\n${body}` : `#!lua\n${body}`;
}

/** Rewrites EVAL / EVAL_RO / SCRIPT LOAD scripts and EVALSHA / EVALSHA_RO hashes; other commands pass through. */
export function acceptUpstashScriptFlags(cmd: [string, ...string[]]): [string, ...string[]] {
  const [name, ...args] = cmd;
  const lower = name.toLowerCase();
  const scriptAt =
    lower === 'eval' || lower === 'eval_ro' ? 0 : lower === 'script' && args[0]?.toLowerCase() === 'load' ? 1 : -1;
  if (scriptAt >= 0 && args[scriptAt] !== undefined) {
    const original = args[scriptAt]!;
    const accepted = withoutUpstashOnlyFlags(original);
    if (accepted === original) return cmd;
    shaOfOriginal.set(sha1(original), sha1(accepted));
    const next = [...args];
    next[scriptAt] = accepted;
    return [name, ...next];
  }
  if ((lower === 'evalsha' || lower === 'evalsha_ro') && args[0] !== undefined) {
    const mapped = shaOfOriginal.get(args[0].toLowerCase());
    return mapped ? [name, mapped, ...args.slice(1)] : cmd;
  }
  return cmd;
}
