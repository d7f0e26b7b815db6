import { describe, expect, it } from 'vitest';
import { analyseWorkerdProfile, ownerOf, sectionsOf, type Profile } from './profile-workerd.js';

/** A bundle as esbuild writes it: each module's code under a `// path` comment. */
const BUNDLE = [
  'var __defProp = Object.defineProperty;', // 0: prelude
  '// node_modules/hono/dist/router/trie-router/node.js', // 1
  'function search() {}', // 2
  '// node_modules/@upstash/redis/chunk-4WQYU7T6.mjs', // 3
  'async function request() {}', // 4
  '// src/observability/turn-log.ts', // 5
  'function logTurn() {}', // 6
  '// ../core/security/digest.ts', // 7
  'function sha256Hex() {}', // 8
].join('\n');

describe("npm run profile:workerd: a workerd CPU profile read back to the product's files", () => {
  it("names a bundle line's source file from esbuild's section comments", () => {
    const section = sectionsOf(BUNDLE);
    expect(section(0)).toBe('(bundle prelude)');
    expect(section(2)).toBe('hono/dist/router/trie-router/node.js');
    expect(section(4)).toBe('@upstash/redis/chunk-4WQYU7T6.mjs');
    expect(section(6)).toBe('src/observability/turn-log.ts');
    expect(section(8)).toBe('../core/security/digest.ts');
  });

  it('owns a file by its package or product folder', () => {
    expect(ownerOf('hono/dist/router/trie-router/node.js')).toBe('hono');
    expect(ownerOf('@upstash/redis/chunk-4WQYU7T6.mjs')).toBe('@upstash/redis');
    expect(ownerOf('src/observability/turn-log.ts')).toBe('src/');
    expect(ownerOf('../core/security/digest.ts')).toBe('core/');
  });

  it('adds self time per function and owner, per turn, leaving idle out', () => {
    const frame = (id: number, functionName: string, url: string, lineNumber: number) => ({
      id,
      callFrame: { functionName, url, lineNumber, scriptId: url ? '7' : '0' },
    });
    const profile: Profile = {
      nodes: [
        frame(1, '(root)', '', 0),
        frame(2, 'search', 'index.js', 2),
        frame(3, 'logTurn', 'index.js', 6),
        frame(4, 'sha256Hex', 'index.js', 8),
        frame(5, '(idle)', '', 0),
        frame(6, 'fetch', '', 0),
      ],
      // 10 turns: logTurn 3 ms, search 1 ms, sha256Hex 0.5 ms, fetch (a runtime builtin) 0.5 ms; 50 ms idle.
      samples: [3, 3, 3, 2, 4, 6, 5],
      timeDeltas: [1000, 1000, 1000, 1000, 500, 500, 50_000],
    };
    const text = analyseWorkerdProfile(profile, 'index.js', sectionsOf(BUNDLE), 10, 10);
    expect(text).toContain('sampled JS-thread time (not idle): 0.500 ms a turn');
    const row = (label: string) => text.split('\n').find((l) => l.startsWith(label)) ?? '';
    expect(row('logTurn src/observability/turn-log.ts')).toMatch(/0\.300\s+60\.0 %/);
    expect(row('search hono/dist/router/trie-router/node.js')).toMatch(/0\.100\s+20\.0 %/);
    const owners = text.slice(text.indexOf('Self time by where the code lives'));
    expect(owners).toMatch(/src\/\s+0\.300/);
    expect(owners).toMatch(/core\/\s+0\.050/);
    expect(owners).toMatch(/\(fetch\)\s+0\.050/);
    expect(text).not.toContain('(idle)');
    const own = text.slice(text.indexOf("product's own functions"), text.indexOf('Self time by where'));
    expect(own).toContain('logTurn');
    expect(own).toContain('sha256Hex');
    expect(own).not.toContain('search');
  });
});
