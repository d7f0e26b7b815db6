import { RESPONSE_MARGIN_MS } from '../src/turn/handle-inbound.js';

/**
 * A latency model for one hosted-model call (one AI SDK step), calibrated on public figures for
 * small OpenAI models (figures, their sources and the fit are in evals/README.md "Latency model"):
 *
 *   latency = TTFT + outputTokens / speed
 *   TTFT    ~ lognormal(median m(prompt), sigma = ln(p95/p50) / 1.645)
 *   m(p)    = ttftMedianMs + ttftMsPerKTokens · (p − refPromptTokens) / 1000   (≥ 50 ms)
 *   speed   ~ lognormal(median speedMedianTps, sigma speedSigma)              (tokens/s)
 *
 * The lognormal TTFT is the heavy tail: with p95/p50 = 5 its p99 is ≈ 9.6× the median. Draws
 * are capped at `maxMs` (a provider timeout). Everything is deterministic given a seed.
 */

export interface LatencyPreset {
  id: string;
  /** Median time to first token at `refPromptTokens` of prompt. */
  ttftMedianMs: number;
  /** p95 / p50 of TTFT (the tail). */
  ttftP95OverP50: number;
  /** Prompt length the median was measured at. */
  refPromptTokens: number;
  /** TTFT growth with prompt length. */
  ttftMsPerKTokens: number;
  /** Median output speed once streaming has started. */
  speedMedianTps: number;
  speedSigma: number;
  maxMs: number;
  sources: string[];
}

const PROMPT_SLOPE = {
  // blog.0xmmo.co, gpt-4.1-nano, min TTFT: 176 ms (<1 KB) → 882 ms (256 KB): ≈ 2.8 ms per KB of
  // prompt ≈ 11 ms per 1k tokens at ~4 characters a token.
  msPerKTokens: 11,
  source: 'blog.0xmmo.co (gpt-4.1-nano, 176 ms @<1 KB → 882 ms @256 KB): ≈ 2.8 ms/KB ≈ 11 ms per 1k tokens',
};

export const LATENCY_PRESETS: Record<string, LatencyPreset> = {
  'gpt-4.1-mini': {
    id: 'gpt-4.1-mini',
    ttftMedianMs: 930,
    ttftP95OverP50: 5,
    refPromptTokens: 10_000,
    ttftMsPerKTokens: PROMPT_SLOPE.msPerKTokens,
    speedMedianTps: 77,
    speedSigma: 0.2,
    maxMs: 60_000,
    sources: [
      'TTFT median 0.93 s, speed 77.2 t/s: Artificial Analysis providers page, gpt-4.1-mini on OpenAI (AA workload 10k input tokens)',
      'p95/p50 = 5: newmen.ai gpt-4o-mini on OpenAI 716 → 4,091 ms (5.7×), on Azure 3.3×; reference prior 4–6×',
      PROMPT_SLOPE.source,
      'speed spread sigma 0.2 (5–95 %: 0.72–1.39× median): OpenAI forum 51.5–68.4 t/s (4.1-mini), AA OpenAI 77 vs Azure 108 t/s',
    ],
  },
  'gpt-4o-mini': {
    id: 'gpt-4o-mini',
    ttftMedianMs: 716,
    ttftP95OverP50: 5.7,
    refPromptTokens: 1_000,
    ttftMsPerKTokens: PROMPT_SLOPE.msPerKTokens,
    speedMedianTps: 59,
    speedSigma: 0.2,
    maxMs: 60_000,
    sources: [
      'latency p50 716 ms / p95 4,091 ms: newmen.ai 30-minute telemetry, gpt-4o-mini on OpenAI (prompt size unknown; 1k tokens assumed)',
      'speed 59.0 (46.1–69.9) t/s: OpenAI forum (tacho, 500-token outputs)',
      PROMPT_SLOPE.source,
    ],
  },
  'gpt-4.1-nano': {
    id: 'gpt-4.1-nano',
    ttftMedianMs: 628,
    ttftP95OverP50: 5,
    refPromptTokens: 1_000,
    ttftMsPerKTokens: PROMPT_SLOPE.msPerKTokens,
    speedMedianTps: 95.9,
    speedSigma: 0.2,
    maxMs: 60_000,
    sources: [
      'TTFT avg 628 ms (min 540, max 722): zenmux.ai, OpenAI route (prompt size unknown; 1k tokens assumed)',
      'speed 95.9 (75.7–106.6) t/s: OpenAI forum (tacho)',
      'p95/p50 = 5: reference prior 4–6× (newmen.ai 5.7× for gpt-4o-mini)',
      PROMPT_SLOPE.source,
    ],
  },
};

/** The tenant default model (src/tenants/tenant-config.ts modelId default). */
export const DEFAULT_PRESET = 'gpt-4.1-mini';

export function presetFor(id: string = DEFAULT_PRESET): LatencyPreset {
  const p = LATENCY_PRESETS[id];
  if (!p) throw new Error(`unknown latency preset "${id}"; known: ${Object.keys(LATENCY_PRESETS).join(', ')}`);
  return p;
}

// ---- deterministic randomness ---------------------------------------------------------------------

/** mulberry32: a small, fast PRNG with a 32-bit state; good enough for simulation. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the parts: a seed that depends on what is drawn, not on the order of draws. */
export function seedOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Standard normal from two uniforms (Box–Muller). */
export function normal(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export const Z95 = 1.6448536269514722;

export function ttftSigma(p: LatencyPreset): number {
  return Math.log(p.ttftP95OverP50) / Z95;
}

export function ttftMedianAt(p: LatencyPreset, promptTokens: number): number {
  return Math.max(50, p.ttftMedianMs + (p.ttftMsPerKTokens * (promptTokens - p.refPromptTokens)) / 1000);
}

export interface StepDraw {
  ttftMs: number;
  outputMs: number;
  totalMs: number;
}

/** One model call's latency. */
export function drawStep(p: LatencyPreset, rand: () => number, promptTokens: number, outputTokens: number): StepDraw {
  const ttft = ttftMedianAt(p, promptTokens) * Math.exp(ttftSigma(p) * normal(rand));
  const speed = p.speedMedianTps * Math.exp(p.speedSigma * normal(rand));
  const output = (outputTokens / speed) * 1000;
  const total = Math.min(p.maxMs, ttft + output);
  return {
    ttftMs: Math.round(Math.min(ttft, total)),
    outputMs: Math.round(total - Math.min(ttft, total)),
    totalMs: Math.round(total),
  };
}

// ---- token estimates for a scripted step -----------------------------------------------------------

/** ~4 characters a token, plus a few tokens of framing per tool call. */
export function outputTokensOf(calls: { tool: string; argumentsText: string }[], text = ''): number {
  let chars = text.length;
  for (const c of calls) chars += c.tool.length + c.argumentsText.length;
  return Math.max(1, Math.ceil(chars / 4) + 6 * calls.length);
}

/**
 * Prompt tokens of step n (0-based) of a turn: instructions + tool definitions of the demo tenant
 * are ≈ 6 KB (≈ 1,500 tokens); a second step also carries the first step's calls and results.
 */
export function promptTokensOf(stepIndex: number, historyTurns = 0): number {
  return 1_500 + 400 * stepIndex + 60 * historyTurns;
}

// ---- the product's deadline ------------------------------------------------------------------------

/**
 * Model time past which the webhook cannot answer with the turn's own reply: the tenant deadline
 * minus the response margin of src/turn/handle-inbound.ts. A turn slower than this is deferred
 * (answered with the holding reply, finished in the background) or, without deferral, falls back.
 */
export function responseBudgetMs(deadlineMs: number): number {
  return deadlineMs - RESPONSE_MARGIN_MS;
}

// ---- quantiles of the fit (for the README and tests) -----------------------------------------------

export function ttftQuantile(p: LatencyPreset, q: number, promptTokens = p.refPromptTokens): number {
  return ttftMedianAt(p, promptTokens) * Math.exp(ttftSigma(p) * normalQuantile(q));
}

/** Acklam's rational approximation of the standard normal quantile (|error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0 || p >= 1) throw new Error('quantile must be in (0, 1)');
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
