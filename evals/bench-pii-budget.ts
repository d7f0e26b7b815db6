/**
 * `npm run bench:pii` — the PII matching cost of the worst tenant configs a save accepts (issue 28,
 * item 5; goal ≤ 5 ms a turn). The patterns run as one DFA with a per-turn state budget
 * (core/tenant/pattern-set.ts); what costs is building states, so every timed turn starts with an
 * empty matcher cache (as a cold isolate would) and reads fresh text. Shapes: configs at the
 * instruction bounds whose states are large (counted `.` runs, overlapping alternations, word
 * runs), patterns whose DFA builds a state per character (`a[ab]{80}z` on a/b text), the widest
 * window a save still accepts (`[a-m].{N}!` on prose), and real patterns on digit-heavy text.
 * Per shape: a 4,000-character reply, and a whole turn (the reply, 11 quick replies and 6 field
 * values of 4,000 characters each). Each figure is the guardrail's time with the patterns minus
 * its time on the same turns without them (median and p90 of the runs; the rest is printed).
 * `--quick`: fewer runs (the machine may be shared).
 */
import { parseTenantConfig } from '../core/tenant/tenant-config.js';
import { TURN_MATCHER_WORK } from '../core/tenant/pattern-set.js';
import { compileTenantPattern, MAX_PATTERN_PROGRAM, MAX_TOTAL_PII_PROGRAM } from '../core/tenant/tenant-pattern.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { compileContentRules, contentGuardrail, MAX_CHECKED_CHARS } from '../guardrails/content.js';
import { act, testConfig, turnInput } from '../test/support/guardrail-input.js';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 5 : 21;

/** Deterministic text over an alphabet (a linear congruential generator), different per seed. */
function randomText(length: number, alphabet: string, seed: number): string {
  let x = seed * 2654435761 + 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

const PROSE =
  'Thanks, Ana! Your pilates class is on Tuesday 12 May at 18:30 (room 2). Write to info@studio.example or call +1 415 555 0123. ';
const prose = (n: number, seed: number) => {
  const start = seed % PROSE.length;
  return (PROSE.repeat(Math.ceil(n / PROSE.length) + 1).slice(start) + PROSE).slice(0, n);
};

interface Shape {
  name: string;
  /** Patterns to add while the save's bounds allow. */
  pattern: (i: number) => string;
  /** At most this many patterns (the default: as many as the total allows). */
  max?: number;
  text: (n: number, seed: number) => string;
}

const REAL = [
  String.raw`[\w.+-]+@[\w-]+\.[\w.]+`,
  String.raw`\b\d{3}-\d{2}-\d{4}\b`,
  String.raw`\+?\d[\d\s-]{7,14}\d`,
  String.raw`[A-Z]{2}\d{2}[A-Z0-9]{11,30}`,
  String.raw`\b[A-Z]{1,2}\d{6,9}\b`,
  String.raw`\b(?:\d[ -]*?){13,16}\b`,
  String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b`,
];

const SHAPES: Shape[] = [
  { name: 'counted dots', pattern: (i) => `.{0,16}.{0,16}.{0,16}z${i}`, text: (n, s) => randomText(n, 'abz0123 ', s) },
  {
    name: 'overlapping alternation',
    pattern: (i) => `(?:a|b|ab|ba){1,12}z${i}`,
    text: (n, s) => randomText(n, 'abz0', s),
  },
  { name: 'word runs', pattern: (i) => `\\w{0,23}\\s\\w{0,23}z${i}`, text: (n, s) => randomText(n, 'ab z0', s) },
  { name: 'state per character', pattern: (i) => `a[ab]{80}z${i}`, text: (n, s) => randomText(n, 'ab', s) },
  { name: 'widest accepted window', pattern: () => widestWindow(), max: 1, text: prose },
  {
    name: 'real patterns, digits',
    pattern: (i) => REAL[i % REAL.length]!,
    max: REAL.length,
    text: (n, s) => randomText(n, '0123456789 -', s),
  },
  { name: 'real patterns, prose', pattern: (i) => REAL[i % REAL.length]!, max: REAL.length, text: prose },
];

/** `[a-m].{N}!` with the largest N a save accepts (the probe replies bound it, not the instructions). */
function widestWindow(): string {
  let best = '';
  for (let n = 1; n <= 90; n++) {
    const pattern = `[a-m].{${n}}!`;
    if (!acceptedConfig([{ name: 'w', pattern }])) break;
    best = pattern;
  }
  return best;
}

function acceptedConfig(piiPatterns: { name: string; pattern: string }[]): TenantConfig | null {
  const parsed = parseTenantConfig({ ...testConfig(), guardrails: { content: { piiPatterns } } });
  return parsed.ok ? parsed.config : null;
}

function worstConfig(shape: Shape) {
  const piiPatterns: { name: string; pattern: string }[] = [];
  let total = 0;
  for (let i = 0; i < (shape.max ?? Number.POSITIVE_INFINITY); i++) {
    const pattern = shape.pattern(i);
    const compiled = compileTenantPattern(pattern, { caseInsensitive: true });
    if (!compiled.ok) throw new Error(`shape "${shape.name}" is refused: ${compiled.problem}`);
    if (total + compiled.pattern.programSize() > MAX_TOTAL_PII_PROGRAM) break;
    const next = [...piiPatterns, { name: `p${i}`, pattern }];
    if (!acceptedConfig(next)) break; // the save's probe replies refuse one more
    piiPatterns.push({ name: `p${i}`, pattern });
    total += compiled.pattern.programSize();
  }
  const config = acceptedConfig(piiPatterns);
  if (!config) throw new Error(`the bench config for "${shape.name}" must be one a save accepts`);
  return { config, patterns: piiPatterns.length, total, example: piiPatterns[0]!.pattern };
}

async function timeTurns(
  config: TenantConfig,
  spec: (seed: number) => Parameters<typeof turnInput>[0],
  withPatterns = true,
) {
  const times: number[] = [];
  const outcomes = new Set<string>();
  for (let r = 0; r < RUNS + 1; r++) {
    // A distinct deny phrase makes distinct settings: compiled afresh (untimed), matcher cache empty.
    const content = {
      ...config.guardrails.content,
      denyPhrases: [`bench probe ${r}`],
      ...(withPatterns ? {} : { piiPatterns: [] }),
    };
    const fresh = { ...config, guardrails: { ...config.guardrails, content } };
    compileContentRules(content);
    const input = turnInput({ ...spec(r), config: fresh });
    const started = performance.now();
    const v = await contentGuardrail.check(input, new AbortController().signal);
    if (r > 0) times.push(performance.now() - started); // the first run warms the JIT
    outcomes.add(v.outcome);
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)]!,
    p90: times[Math.floor(times.length * 0.9)]!,
    outcomes: [...outcomes].join('/'),
  };
}

/** The turn with the patterns and without them (the same texts, card and deny-list checks): the difference is the PII matching. */
async function timePii(config: TenantConfig, spec: (seed: number) => Parameters<typeof turnInput>[0]) {
  const withPatterns = await timeTurns(config, spec);
  const without = await timeTurns(config, spec, false);
  return {
    median: Math.max(0, withPatterns.median - without.median),
    p90: Math.max(0, withPatterns.p90 - without.p90),
    base: without.median,
    outcomes: withPatterns.outcomes,
  };
}

console.log(
  `bounds: ${MAX_PATTERN_PROGRAM} instructions a pattern, ${MAX_TOTAL_PII_PROGRAM} together, ${TURN_MATCHER_WORK.toLocaleString('en')} steps of matcher work a turn; ${RUNS} runs, each with an empty matcher cache and fresh text`,
);
console.log(
  'shape'.padEnd(24),
  'patterns',
  'instr.',
  'PII matching, 4,000-char reply: median / p90'.padStart(40),
  'PII matching, whole turn: median / p90'.padStart(40),
);
let worst = 0;
let worstP90 = 0;
for (const shape of SHAPES) {
  const { config, patterns, total, example } = worstConfig(shape);
  const reply = await timePii(config, (seed) => ({ reply: { text: shape.text(MAX_CHECKED_CHARS, seed) } }));
  const turn = await timePii(config, (seed) => ({
    reply: {
      text: shape.text(MAX_CHECKED_CHARS, seed),
      quickReplies: Array.from({ length: 11 }, (_, q) => shape.text(20, seed * 100 + q)),
    },
    staged: Array.from({ length: 6 }, (_, f) => act.field('email', shape.text(MAX_CHECKED_CHARS, seed * 100 + 50 + f))),
  }));
  worst = Math.max(worst, reply.median, turn.median);
  worstP90 = Math.max(worstP90, reply.p90, turn.p90);
  const cell = (t: { median: number; p90: number; base: number; outcomes: string }) =>
    `${t.median.toFixed(2)} / ${t.p90.toFixed(2)} ms (${t.outcomes}; rest ${t.base.toFixed(2)})`.padStart(40);
  console.log(
    shape.name.padEnd(24),
    String(patterns).padStart(8),
    String(total).padStart(6),
    cell(reply),
    cell(turn),
    ` e.g. ${example}`,
  );
}
console.log(
  `\nworst accepted config: ${worst.toFixed(2)} ms of PII matching per turn, median of ${RUNS} cold runs (goal ≤ 5 ms); p90 ${worstP90.toFixed(2)} ms.`,
);
console.log(
  '("rest": the same turn with no PII patterns — card numbers, deny-list, normalisation — not part of the figure.)',
);
