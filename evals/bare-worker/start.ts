import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../dev/stack.js';

/** `wrangler dev` of the bare Hono worker (the benchmarks' floors) on `port`; `vars` as wrangler `--var`s (the I/O floor's URLs). */
export function startBareWorker(
  port: number,
  log: (l: string) => void,
  inspectorPort = 0,
  vars: Record<string, string> = {},
): ChildProcess {
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]);
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'wrangler'),
    [
      'dev',
      '-c',
      join(ROOT, 'evals', 'bare-worker', 'wrangler.toml'),
      '--local',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
      '--inspector-port',
      String(inspectorPort),
      ...varArgs,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    },
  );
  const forward = (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter((l) => l.trim())
      .forEach((l) => log(`[bare] ${l}`));
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  return child;
}
