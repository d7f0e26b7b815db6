/**
 * `npm run bench:regex` — tenant patterns on the linear-time engine (RE2JS, what the content
 * guardrail runs) against V8's backtracking RegExp (what it ran before), on adversarial input.
 * Prints, per pattern and input size, the time of one non-matching search, and the ratio of the
 * largest to the smallest size: ≈ the size ratio means linear time. V8 is measured only on small
 * inputs (it would run for minutes on 4,000 characters); its growth is the point.
 */
import { RE2JS } from 're2js';

const PATTERNS: { source: string; input: (n: number) => string }[] = [
  // The literal is present only at the end, so no engine can skip the scan by looking for it first.
  { source: String.raw`\d*\d*\d*x`, input: (n) => `${'1'.repeat(n - 2)}-x` },
  { source: '(a+)+$', input: (n) => `${'a'.repeat(n)}!` },
  { source: '(a|aa)*b', input: (n) => 'a'.repeat(n) },
  { source: String.raw`(\w*\s?)+x`, input: (n) => 'ab '.repeat(Math.ceil(n / 3)).slice(0, n) },
  { source: String.raw`(.*a){12}`, input: (n) => 'a'.repeat(n) },
];
const RE2_SIZES = [1000, 2000, 4000, 8000, 16000];
const V8_SIZES = [16, 20, 24];

function time(run: () => unknown, minMs = 100): number {
  for (let i = 0; i < 5; i++) run(); // warm up the JIT before timing
  let runs = 0;
  const started = performance.now();
  do {
    run();
    runs++;
  } while (performance.now() - started < minMs);
  return (performance.now() - started) / runs;
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`);
console.log(
  'pattern'.padEnd(16),
  ...RE2_SIZES.map((n) => `re2 n=${n}`.padStart(13)),
  '4k/1k'.padStart(7),
  '16k/8k'.padStart(7),
  ...V8_SIZES.map((n) => `v8 n=${n}`.padStart(12)),
);
for (const p of PATTERNS) {
  const re2 = RE2JS.compile(p.source);
  const re2Times = RE2_SIZES.map((n) => {
    const text = p.input(n);
    return time(() => re2.matcher(text).find());
  });
  const v8 = new RegExp(p.source);
  const v8Times = V8_SIZES.map((n) => {
    const text = p.input(n);
    return time(() => v8.test(text), 5);
  });
  console.log(
    p.source.padEnd(16),
    ...re2Times.map((t) => fmt(t).padStart(13)),
    `${(re2Times[2]! / re2Times[0]!).toFixed(1)}×`.padStart(7),
    `${(re2Times[4]! / re2Times[3]!).toFixed(1)}×`.padStart(7),
    ...v8Times.map((t) => fmt(t).padStart(12)),
  );
}
console.log(`
Linear time: 4× the text costs about 4× (or less: fixed costs), 2× about 2×. RE2JS switches from
its bit-state matcher to its NFA above 4,096 characters (a constant-factor step, visible between
4k and 8k); the content guardrail never runs a pattern on more than 4,000. Patterns with a literal
RE2 can look for first (x, b) are rejected without a scan when it is absent. V8's RegExp, which ran
these before, grows with the backtracking already at a few dozen characters.`);
