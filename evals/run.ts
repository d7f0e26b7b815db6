/**
 * `npm run eval` — the eval suite through the real Worker on the local stack.
 *
 *   npm run eval -- [--cases DIR] [--json FILE] [--repeat N] [--concurrency N] [--seed S]
 *                   [--preset gpt-4.1-mini|gpt-4o-mini|gpt-4.1-nano] [--filter TEXT] [--no-baseline]
 *                   [--live] [--verbose]
 *                   [--hedging on|off|both] [--shortlist on|off|both]
 *   npm run eval -- --estimate [--cases DIR] [--draws N] [--deadline-ms MS] [--overhead-ms MS] [--hedge-after-ms MS] [--hedge-fresh-call-ms MS] [--json FILE]
 *
 * Exit status: 0 every case passed; 1 a case failed; 2 bad usage, or --live without OPENAI_API_KEY.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../dev/stack.js';
import { CaseFormatError } from './case-format.js';
import { LiveModelUnavailable } from './environment.js';
import { estimate, renderEstimate } from './estimate.js';
import { LATENCY_PRESETS } from './latency-model.js';
import { renderHedgingComparison, renderSvg, renderTable, reportPaths, writeText } from './report.js';
import { describeTurn, type CaseResult } from './run-case.js';
import { renderShortlistComparison } from './shortlist-report.js';
import { NoCasesSelected, runEval } from './runner.js';

const USAGE = `usage: npm run eval -- [--cases DIR] [--json FILE] [--repeat N] [--concurrency N] [--seed S] [--preset ID] [--filter TEXT] [--no-baseline] [--live] [--verbose] [--hedging on|off|both] [--shortlist on|off|both]
       npm run eval -- --estimate [--cases DIR] [--draws N] [--deadline-ms MS] [--overhead-ms MS] [--hedge-after-ms MS] [--hedge-fresh-call-ms MS] [--preset ID] [--json FILE]`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function int(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

function printResult(r: CaseResult): void {
  const tag = `${r.variant === 'product' ? '' : ' [naive 2-step]'}${r.shortlist ? '' : ' [shortlist off]'}`;
  const rep = r.repeat ? ` #${r.repeat + 1}` : '';
  if (r.passed) {
    console.log(`  ✓ ${r.name}${rep}${tag}  ${Math.round(r.ms)} ms`);
    return;
  }
  console.log(`  ✗ ${r.name}${rep}${tag}  (${r.file})`);
  for (const f of r.failures) console.log(`      ${f}`);
  if (!r.turns.length) return;
  console.log('    what happened:');
  for (const t of r.turns) console.log(describeTurn(t).replace(/^/gm, '    '));
}

async function main() {
  let args;
  try {
    args = parseArgs({
      options: {
        cases: { type: 'string' },
        json: { type: 'string' },
        repeat: { type: 'string' },
        concurrency: { type: 'string' },
        seed: { type: 'string' },
        preset: { type: 'string' },
        filter: { type: 'string' },
        'no-baseline': { type: 'boolean' },
        'no-warmup': { type: 'boolean' },
        live: { type: 'boolean' },
        verbose: { type: 'boolean' },
        estimate: { type: 'boolean' },
        draws: { type: 'string' },
        'deadline-ms': { type: 'string' },
        'overhead-ms': { type: 'string' },
        reports: { type: 'string' },
        hedging: { type: 'string' },
        shortlist: { type: 'string' },
        'hedge-after-ms': { type: 'string' },
        'hedge-fresh-call-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values;
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const casesDir = resolve(args.cases ?? resolve(ROOT, 'evals', 'cases'));
  const preset = args.preset ?? 'gpt-4.1-mini';
  if (!LATENCY_PRESETS[preset]) fail(`--preset must be one of ${Object.keys(LATENCY_PRESETS).join(', ')}`);
  const seed = args.seed ?? '1';

  if (args.estimate) {
    const e = await estimate({
      casesDir,
      preset,
      seed,
      draws: int('draws', args.draws, 20_000),
      deadlineMs: int('deadline-ms', args['deadline-ms'], 8000, 500),
      overheadMs: int('overhead-ms', args['overhead-ms'], 40, 0),
      ...(args['hedge-after-ms'] !== undefined
        ? { hedgeAfterMs: int('hedge-after-ms', args['hedge-after-ms'], 0, 0) }
        : {}),
      ...(args['hedge-fresh-call-ms'] !== undefined
        ? { hedgeFreshCallMs: int('hedge-fresh-call-ms', args['hedge-fresh-call-ms'], 0, 0) }
        : {}),
    });
    console.log(renderEstimate(e));
    if (args.json) {
      await writeText(resolve(args.json), JSON.stringify(e, null, 2));
      console.log(`\nJSON: ${resolve(args.json)}`);
    }
    return 0;
  }

  if (args.live && !process.env.OPENAI_API_KEY) {
    console.error(
      '--live uses the configured real model, but OPENAI_API_KEY is not set (OPENAI_BASE_URL and OPENAI_API_MODE are optional). Nothing was run.',
    );
    return 2;
  }

  const repeat = int('repeat', args.repeat, 1);
  const hedging = args.hedging ?? 'on';
  if (hedging !== 'on' && hedging !== 'off' && hedging !== 'both')
    fail(`--hedging must be on, off or both, got "${hedging}"`);
  const shortlist = args.shortlist ?? 'on';
  if (shortlist !== 'on' && shortlist !== 'off' && shortlist !== 'both')
    fail(`--shortlist must be on, off or both, got "${shortlist}"`);
  if (hedging === 'both' && shortlist === 'both')
    fail('--hedging both and --shortlist both cannot be combined: compare one at a time');
  const concurrency = int('concurrency', args.concurrency, 8);
  console.log(
    `eval: cases ${casesDir}, ${args.live ? 'LIVE model (scripts ignored)' : `model sandbox, latency model ${preset}, seed ${seed}`}`,
  );
  const run = await runEval({
    casesDir,
    repeat,
    concurrency,
    live: args.live ?? false,
    seed,
    preset,
    baseline: !args['no-baseline'],
    hedging,
    shortlist,
    warmup: !args['no-warmup'],
    ...(args.filter ? { filter: args.filter } : {}),
    ...(args.verbose ? { log: (l: string) => console.log(`    ${l}`) } : {}),
    onResult: printResult,
  });
  if (run.workerErrors.length)
    console.log(
      `\nThe Worker logged ${run.workerErrors.length} distinct error line(s):\n${run.workerErrors.map((e) => `  ${e}`).join('\n')}`,
    );
  if (run.notRunLive.length) console.log(`\nnot run live (need a scripted model): ${run.notRunLive.join(', ')}`);
  const deadlineMs = 8000;
  console.log(`\n${renderTable(run.summary, { deadlineMs, preset, live: run.options.live })}`);
  if (run.summaryWithoutHedging) console.log(`\n${renderHedgingComparison(run.summary, run.summaryWithoutHedging)}`);
  if (run.shortlistComparison) console.log(`\n${renderShortlistComparison(run.shortlistComparison)}`);
  const reportsDir = resolve(args.reports ?? resolve(ROOT, 'evals', 'reports'));
  const paths = reportPaths(reportsDir);
  const svg = renderSvg(run.summary, {
    deadlineMs,
    title: `staged-agent eval ${run.startedAt.slice(0, 19)}Z — ${run.options.live ? 'live model' : `latency model ${preset}, seed ${seed}`}`,
  });
  await writeText(paths.svg, svg);
  await writeText(paths.latestSvg, svg);
  console.log(`\nSVG: ${paths.svg}`);
  if (args.json) {
    await writeText(
      resolve(args.json),
      JSON.stringify(run, (k, v) => (k === 'latencies' || k === 'values' ? undefined : v), 2),
    );
    console.log(`JSON: ${resolve(args.json)}`);
  }
  console.log(`(${(run.ms / 1000).toFixed(1)} s)`);
  return run.summary.correctness.failed +
    run.summary.correctness.variantsFailed +
    (run.summaryWithoutHedging?.correctness.failed ?? 0) +
    (run.summaryWithoutShortlist?.correctness.failed ?? 0) >
    0
    ? 1
    : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof CaseFormatError) console.error(`invalid case: ${err.message}`);
    else if (err instanceof NoCasesSelected) {
      console.error(err.message);
      process.exit(2);
    } else if (err instanceof LiveModelUnavailable) {
      console.error(err.message);
      process.exit(2);
    } else console.error(`eval failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(err instanceof CaseFormatError ? 2 : 1);
  },
);
