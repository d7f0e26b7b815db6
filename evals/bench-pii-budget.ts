/**
 * `npm run bench:pii` — the PII matching cost of the worst tenant config a save accepts (issue 28,
 * item 5). A search costs up to (program instructions × characters); the save bounds each pattern
 * (MAX_PATTERN_PROGRAM) and their sum (MAX_TOTAL_PII_PROGRAM), and the content guardrail stops a
 * turn at MAX_TURN_PII_WORK. This builds configs at those bounds from the shapes that keep every
 * RE2 thread alive (counted `.` runs, alternations that overlap), with the pattern's literal at the
 * end of the text so no prefilter can skip the scan, and prints the content guardrail's time per
 * turn: a 1,995-character reply, a full 4,000-character reply, and a turn at the work budget.
 * `--quick`: fewer repetitions (the machine may be shared).
 */
import { parseTenantConfig } from '../core/tenant/tenant-config.js';
import { compileTenantPattern, MAX_PATTERN_PROGRAM, MAX_TOTAL_PII_PROGRAM } from '../core/tenant/tenant-pattern.js';
import { contentGuardrail, MAX_CHECKED_CHARS, MAX_TURN_PII_WORK } from '../guardrails/content.js';
import { act, testConfig, turnInput } from '../test/support/guardrail-input.js';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 3 : 15;

/** Shapes near the per-pattern bound, each with a distinct tail literal (`z0`, `z1`, …). */
const SHAPES: { name: string; pattern: (i: number) => string; text: (n: number, i: number) => string }[] = [
  {
    name: 'counted dots',
    pattern: (i) => `.{0,16}.{0,16}.{0,16}z${i}`,
    text: (n, i) => `${'a'.repeat(n - 3)}z${i}`.slice(-n),
  },
  {
    name: 'overlapping alternation',
    pattern: (i) => `(?:a|b|ab|ba){1,12}z${i}`,
    text: (n, i) => `${'ab'.repeat(n)}`.slice(0, n - 3) + `z${i}`,
  },
  {
    name: 'word runs',
    pattern: (i) => `\\w{0,23}\\s\\w{0,23}z${i}`,
    text: (n, i) => `${'ab cd '.repeat(n)}`.slice(0, n - 3) + `z${i}`,
  },
];

function worstConfig(shape: (typeof SHAPES)[number]) {
  // As many patterns at the per-pattern bound as the total allows.
  const piiPatterns: { name: string; pattern: string }[] = [];
  let total = 0;
  for (let i = 0; ; i++) {
    const pattern = shape.pattern(i);
    const compiled = compileTenantPattern(pattern, { caseInsensitive: true });
    if (!compiled.ok) throw new Error(`shape "${shape.name}" is refused: ${compiled.problem}`);
    if (total + compiled.pattern.programSize() > MAX_TOTAL_PII_PROGRAM) break;
    piiPatterns.push({ name: `p${i}`, pattern });
    total += compiled.pattern.programSize();
  }
  const parsed = parseTenantConfig({ ...testConfig(), guardrails: { content: { piiPatterns } } });
  if (!parsed.ok) throw new Error(`the bench config must be one a save accepts: ${parsed.problems.join('; ')}`);
  return { config: parsed.config, patterns: piiPatterns.length, total };
}

async function timeTurn(spec: Parameters<typeof turnInput>[0]): Promise<{ ms: number; outcome: string }> {
  const input = turnInput(spec);
  await contentGuardrail.check(input, new AbortController().signal); // compile once (cached per config), as an isolate would
  const times: number[] = [];
  let outcome = '';
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    const v = await contentGuardrail.check(input, new AbortController().signal);
    times.push(performance.now() - started);
    outcome = v.outcome;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, outcome };
}

console.log(
  `bounds: ${MAX_PATTERN_PROGRAM} instructions a pattern, ${MAX_TOTAL_PII_PROGRAM} together, ${MAX_TURN_PII_WORK.toLocaleString('en')} instruction-characters a turn; median of ${RUNS} runs`,
);
console.log(
  'shape'.padEnd(26),
  'patterns',
  'instr.',
  '1,995-char reply'.padStart(18),
  '4,000-char reply'.padStart(18),
  'turn at the budget'.padStart(20),
);
let worst = 0;
for (const shape of SHAPES) {
  const { config, patterns, total } = worstConfig(shape);
  const short = await timeTurn({ config, reply: { text: shape.text(1995, 0) } });
  const full = await timeTurn({ config, reply: { text: shape.text(MAX_CHECKED_CHARS, 0) } });
  // The reply plus field values up to the budget: the most one turn can make the patterns read.
  const extra = Math.max(0, Math.floor(MAX_TURN_PII_WORK / Math.max(1, total) / MAX_CHECKED_CHARS) - 1);
  const budget = await timeTurn({
    config,
    reply: { text: shape.text(MAX_CHECKED_CHARS, 0) },
    staged: Array.from({ length: extra }, () => act.field('email', shape.text(MAX_CHECKED_CHARS, 1))),
  });
  worst = Math.max(worst, short.ms, full.ms, budget.ms);
  const cell = (t: { ms: number; outcome: string }) => `${t.ms.toFixed(1)} ms (${t.outcome})`.padStart(18);
  console.log(
    shape.name.padEnd(26),
    String(patterns).padStart(8),
    String(total).padStart(6),
    cell(short),
    cell(full),
    cell(budget).padStart(20),
  );
}
console.log(`\nworst accepted config: ${worst.toFixed(1)} ms of PII matching per turn (goal ≤ 5 ms).`);
