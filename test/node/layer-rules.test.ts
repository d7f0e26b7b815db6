import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layer rules (.dependency-cruiser.cjs, run by `npm test` before any test) fire: the repo's
 * own config, run by the repo's depcruise over a small tree beside it, refuses an upward import
 * from the ground floor, a pillar importing the app or another pillar, and a cycle — and passes
 * the same tree without them. (`npm test` shows that the real tree passes.)
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'layer-rules-'));
  dirs.push(dir);
  await copyFile(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }),
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function depcruise(cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'depcruise'),
      ['core', 'tools', 'guardrails', 'outbox', 'src', '--config', '.dependency-cruiser.cjs'],
      { cwd },
      (err, stdout, stderr) => {
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

const LAWFUL = {
  'core/verdict.ts': 'export const PASS = "pass";\n',
  'tools/registry.ts': 'import { PASS } from "../core/verdict.js";\nexport const tool = PASS;\n',
  'guardrails/pipeline.ts': 'import { PASS } from "../core/verdict.js";\nexport const judge = PASS;\n',
  'outbox/commit.ts': 'import { PASS } from "../core/verdict.js";\nexport const commit = PASS;\n',
  'src/app.ts':
    'import { tool } from "../tools/registry.js";\nimport { judge } from "../guardrails/pipeline.js";\nimport { commit } from "../outbox/commit.js";\nexport const app = [tool, judge, commit];\n',
};

describe('the layer rules', () => {
  it('pass a tree that keeps the layers', async () => {
    const { code, out } = await depcruise(await tree(LAWFUL));
    expect(out).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 60_000);

  it('refuse an upward import from core/, a pillar importing src/ or another pillar, and a cycle', async () => {
    const { code, out } = await depcruise(
      await tree({
        ...LAWFUL,
        'core/verdict.ts':
          'import { app } from "../src/app.js";\nexport const PASS = "pass";\nexport const seen = app;\n',
        'outbox/commit.ts':
          'import { PASS } from "../core/verdict.js";\nimport { HistoryEntry } from "../src/history.js";\nexport const commit = [PASS, HistoryEntry];\n',
        'src/history.ts': 'export const HistoryEntry = "h";\n',
        'guardrails/pipeline.ts': 'import { tool } from "../tools/registry.js";\nexport const judge = tool;\n',
      }),
    );
    expect(code).not.toBe(0);
    expect(out).toContain('error core-imports-nothing-above: core/verdict.ts → src/app.ts');
    expect(out).toContain('error outbox-imports-only-core: outbox/commit.ts → src/history.ts');
    expect(out).toContain('error guardrails-imports-only-core: guardrails/pipeline.ts → tools/registry.ts');
    expect(out).toContain('error no-circular-production-imports');
  }, 60_000);

  it('refuse an engine file importing Hono, a route, a channel webhook or the dashboard; the channel definitions and the services types are allowed', async () => {
    const lawful = {
      ...LAWFUL,
      'src/channels/channel.ts': 'export const channel = "manychat";\n',
      'src/http/app-context.ts': 'export type Services = { name: string };\n',
      'src/turn/commit-turn.ts':
        'import { channel } from "../channels/channel.js";\nimport type { Services } from "../http/app-context.js";\nexport const commit: [string, Services | null] = [channel, null];\n',
      'src/routes/finish-turn.ts': 'import { commit } from "../turn/commit-turn.js";\nexport const route = commit;\n',
    };
    const ok = await depcruise(await tree(lawful));
    expect(ok.out).toContain('no dependency violations found');
    expect(ok.code).toBe(0);
    const { code, out } = await depcruise(
      await tree({
        ...lawful,
        'node_modules/hono/package.json': '{"name":"hono","version":"0.0.0","main":"index.js"}',
        'node_modules/hono/index.js': 'export class Hono {}\n',
        'src/turn/handle-inbound.ts': 'import { Hono } from "hono";\nexport const app = new Hono();\n',
        'src/replay/select-turns.ts':
          'import { rows } from "../dashboard/data/turns.js";\nexport const picked = rows;\n',
        'src/dashboard/data/turns.ts': 'export const rows = [];\n',
        'src/approvals/decide.ts': 'import { route } from "../routes/finish-turn.js";\nexport const decide = route;\n',
        'src/channels/channel.ts': 'import { route } from "../routes/finish-turn.js";\nexport const channel = route;\n',
      }),
    );
    expect(code).not.toBe(0);
    expect(out).toContain('error engine-does-not-import-hono: src/turn/handle-inbound.ts → node_modules/hono/index.js');
    expect(out).toContain('error engine-does-not-import-app: src/replay/select-turns.ts → src/dashboard/data/turns.ts');
    expect(out).toContain('error engine-does-not-import-app: src/approvals/decide.ts → src/routes/finish-turn.ts');
    expect(out).toContain('error engine-ports-import-no-app: src/channels/channel.ts → src/routes/finish-turn.ts');
    expect(out).not.toContain('src/turn/commit-turn.ts → src/channels/channel.ts');
  }, 60_000);
});
