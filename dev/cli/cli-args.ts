/**
 * What the operator's command lines (`npm run tenant`, `npm run replay`) share: arguments parsed
 * strictly with plain-words errors (never a raw parseArgs TypeError), `--help` on every command,
 * the local stack's facts read from `STACK_STATE_DIR` (where `npm start` wrote them), and one
 * exit-code contract: 0 done, 1 the Worker or Redis refused or failed (the reason is printed),
 * 2 a usage error (the message and the usage are printed).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ROOT } from '../stack.js';

/** A mistake in the command line: printed with the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  /** The usage to print with it (a command's own); absent: the CLI's. */
  usage?: string;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs, strict, with `--help`/`-h`; its errors rethrown as UsageErrors in plain words. */
export function parseCommandLine<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!code?.startsWith('ERR_PARSE_ARGS')) throw err;
    const message = (err as Error).message;
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${option ?? message}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /ambiguous/.test(message) && option) {
      // `--admin-secret -w9…`: a value that starts with a dash (a generated secret can) reads as an
      // option; the `=` form is how to pass it. The value is not echoed: it may be a secret.
      throw new UsageError(`${option}'s value starts with a dash: write it as ${option}=<value>`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(
        /argument missing/.test(message)
          ? `${option ?? 'an option'} needs a value`
          : `${option ?? 'an option'} takes no value`,
      );
    throw new UsageError(message.split('.')[0]!);
  }
}

/** Options given that `allowed` does not list (besides --help): each is a usage error for this command. */
export function rejectOptionsOutside(
  values: Record<string, unknown>,
  allowed: readonly string[],
  command: string,
): void {
  const extra = Object.keys(values).filter((k) => k !== 'help' && values[k] !== undefined && !allowed.includes(k));
  if (extra.length) throw new UsageError(`${command} does not take ${extra.map((k) => `--${k}`).join(', ')}`);
}

/** Where `npm start` wrote the stack's facts: `$STACK_STATE_DIR/stack.json`, else `.local/stack.json`. */
export function stackFactsFile(env: Partial<Record<string, string>> = process.env): string {
  return join(env.STACK_STATE_DIR ? resolve(env.STACK_STATE_DIR) : join(ROOT, '.local'), 'stack.json');
}

/** The running local stack's facts, or `{}` when there is none (then flags must say where). */
export async function readStackFacts<T extends object>(
  env: Partial<Record<string, string>> = process.env,
): Promise<Partial<T>> {
  try {
    return JSON.parse(await readFile(stackFactsFile(env), 'utf8')) as Partial<T>;
  } catch {
    return {};
  }
}

/** Runs a CLI's main as a script: prints errors the way the contract says and exits with its code. */
export function runAsScript(main: (argv: string[]) => Promise<number>, usage: () => string): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) console.error(`${err.message}\n\n${err.usage ?? usage()}`);
      else console.error(err instanceof Error ? err.message : String(err));
      process.exit(err instanceof UsageError ? EXIT.usage : EXIT.failed);
    },
  );
}
