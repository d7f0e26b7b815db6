import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStackFacts, stackFactsFile, UsageError } from '../../dev/cli/cli-args.js';
import { REPLAY_USAGE, runReplayCli } from '../../dev/replay-cli.js';
import { ROOT } from '../../dev/stack.js';
import { runTenantCli, tenantUsage } from '../../dev/tenant-cli.js';

/** The operator's command lines behave like command lines, with no stack running: help, usage errors, exit codes. */
const COMMANDS = [
  'create',
  'list',
  'show',
  'config',
  'rotate',
  'secrets',
  'suspend',
  'resume',
  'delete',
  'reencrypt',
  'dashboard-user',
  'audit',
];

async function tenant(...args: string[]) {
  const lines: string[] = [];
  const code = await runTenantCli(args, (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

async function withEnv(vars: Record<string, string | undefined>, body: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const put = (entries: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(entries)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  put(vars);
  try {
    await body();
  } finally {
    put(saved);
  }
}

/** The script as npm runs it: its exit code and what it printed. */
function script(file: string, args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'dev', file), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run tenant: --help and usage errors', () => {
  it('--help lists every command and the exit codes; <command> --help shows that command only', async () => {
    const all = await tenant('--help');
    expect(all.code).toBe(0);
    for (const c of COMMANDS) expect(all.out).toContain(`\n  ${c}`);
    expect(all.out).toContain('exit codes: 0 done · 1 the Worker refused or failed');
    for (const c of COMMANDS) {
      const one = await tenant(c, '--help');
      expect(one.code, c).toBe(0);
      expect(one.out).toBe(tenantUsage(c));
      expect(one.out.split('\n')[0]).toContain(`npm run tenant -- ${c}`);
    }
    expect((await tenant('config', 'push', '--help')).out).toContain('config push <tenant-id> --file config.json');
  });

  it('an unknown option, command or stray argument is a usage error in plain words, never a parseArgs error', async () => {
    await expect(tenant('list', '--bogus')).rejects.toThrow(UsageError);
    await expect(tenant('list', '--bogus')).rejects.toThrow(/^unknown option --bogus$/);
    await expect(tenant('rotate', 'a', '--user', 'x')).rejects.toThrow('rotate does not take --user');
    await expect(tenant('frobnicate')).rejects.toThrow('unknown command "frobnicate"');
    await expect(tenant('show', 'a', 'b')).rejects.toThrow('show takes one tenant id; unexpected "b"');
    await expect(tenant('config', 'drop', 'a')).rejects.toThrow('unknown config command "drop" (get, push or diff)');
    await expect(tenant('create', 'a', '--manychat-key')).rejects.toThrow('--manychat-key needs a value');
    await expect(tenant('suspend')).rejects.toThrow('suspend needs a tenant id');
  });

  it('as a script: --help exits 0, a usage error exits 2 with the message and the usage, nothing else on stdout', () => {
    const help = script('tenant-cli.ts', ['rotate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npm run tenant -- rotate');
    const bad = script('tenant-cli.ts', ['list', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^unknown option --bogus\n\nusage: npm run tenant -- list/);
    expect(bad.stderr).not.toMatch(/TypeError|ERR_PARSE_ARGS|at .*\.ts:\d+/);
    expect(bad.stdout).toBe('');
  }, 120_000); // two tsx start-ups: seconds on a quiet machine, far more on a loaded one

  it('with no stack at STACK_STATE_DIR and no --url it says where it looked; an unreachable Worker is a failure, not a usage error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'no-stack-'));
    await withEnv({ STACK_STATE_DIR: dir, OPERATOR_SECRET: undefined }, async () => {
      await expect(tenant('list')).rejects.toThrow(
        `no Worker to talk to: start the local stack (npm start; looked for ${join(dir, 'stack.json')})`,
      );
      const failure = await tenant('list', '--url', 'http://127.0.0.1:9', '--operator-secret', 'x').catch(
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(UsageError);
    });
  });
});

describe('npm run replay: --help and usage errors', () => {
  it('--help prints the usage with every option and the exit codes', async () => {
    const lines: string[] = [];
    expect(await runReplayCli(['--help'], (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toBe(REPLAY_USAGE);
    for (const flag of [
      '--config',
      '--ids',
      '--limit',
      '--decision',
      '--contact',
      '--since',
      '--until',
      '--model-url',
      '--json',
      '--export-case',
      '--out',
      '--upstash-url',
      '--upstash-token',
    ])
      expect(REPLAY_USAGE).toContain(flag);
    expect(REPLAY_USAGE).toContain('exit codes: 0 done');
  });

  it('unknown options, bad ids and bad limits are usage errors (exit 2 as a script)', async () => {
    await expect(runReplayCli(['demo', '--bogus'], () => {})).rejects.toThrow(UsageError);
    await expect(runReplayCli(['demo', '--json=yes'], () => {})).rejects.toThrow(/^--json takes no value$/);
    await expect(runReplayCli(['Not_A_Tenant'], () => {})).rejects.toThrow('"Not_A_Tenant" is not a tenant id');
    await expect(runReplayCli(['demo', '--limit', '0'], () => {})).rejects.toThrow(
      '--limit is a whole number from 1 to 1000',
    );
  });

  it('reads the stack facts from STACK_STATE_DIR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replay-state-'));
    expect(stackFactsFile({ STACK_STATE_DIR: dir })).toBe(join(dir, 'stack.json'));
    expect(stackFactsFile({})).toBe(join(ROOT, '.local', 'stack.json'));
    await writeFile(join(dir, 'stack.json'), JSON.stringify({ upstash: { url: 'http://127.0.0.1:9', token: 't' } }));
    expect(await readStackFacts({ STACK_STATE_DIR: dir })).toEqual({
      upstash: { url: 'http://127.0.0.1:9', token: 't' },
    });
    await withEnv({ STACK_STATE_DIR: dir }, async () => {
      // It tried the Redis named there (nothing listens on port 9), not .local/stack.json's.
      const failure = await runReplayCli(['demo'], () => {}).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(UsageError);
    });
    await withEnv({ STACK_STATE_DIR: join(dir, 'absent') }, () =>
      expect(runReplayCli(['demo'], () => {})).rejects.toThrow(`looked for ${join(dir, 'absent', 'stack.json')}`),
    );
  });
});
