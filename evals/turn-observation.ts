import type { TurnRecord } from '../core/turn-record.js';
import { turnForm, turnLabel, type CaseTurn, type TurnForm } from './case-format.js';
import type { LatencyPreset } from './latency-model.js';
import type { Observed } from './observed.js';
import type { TurnKind } from './turn-kind.js';

export type Variant = 'product' | 'naive-2-step';

export interface RunCaseOptions {
  preset: LatencyPreset;
  seed: string;
  repeat: number;
  variant: Variant;
  /** The case name latency draws are keyed on (a variant draws like its original). */
  drawKey: string;
  /** Turn indexes a naive variant rewrote into two calls. */
  naiveTurns?: number[];
  /** Whether the case's tenant hedges slow model calls (the run's setting overrides the case's). */
  hedging: boolean;
  /** False: the run turned the tool shortlist off for the case's tenant (the full menu every turn). Default true: the case's config decides. */
  shortlist?: boolean;
}

/** How the drawn model time of a turn compares with the tenant's model budget. */
export type DeadlinePath = 'normal' | 'deadline' | 'either';

export interface TurnObservation extends Observed {
  index: number;
  form: TurnForm;
  /** What the turn did: the contact's text, or a label for a press or a decision. */
  text: string;
  contactId: string;
  kind: TurnKind;
  /** What the script aimed at (null: no model call or a scripted error). */
  scriptKind: Exclude<TurnKind, 'deferred'> | null;
  /** Set on the turns a naive variant rewrote into two calls. */
  naive: boolean;
  primaryTurnId: string | null;
  /** The pinned row a press or a decision acted on. */
  targetRowId: string | null;
  notes: string[];
  /** The webhook (or, for a decision, the tenant API) latency of the delivery that ran the turn. */
  latencyMs: number | null;
  /**
   * When the contact got the turn's own reply: the webhook latency, or for a deferred turn the
   * time its reply reached ManyChat (sendContent) after the delivery was sent; null if never.
   */
  replyLatencyMs: number | null;
  /** Time the model sandbox spent serving this turn's calls (what a real model would take). */
  modelMs: number;
  overheadMs: number | null;
  modelDetail: { source: string; status: number; aborted: boolean; servedMs: number; hedge: boolean }[];
  /** Hedge requests (the same call sent again by a hedged model): extra calls, not steps. */
  hedgeCalls: number;
  /** `latencies`: the primary draws; `effective`: what each step takes when a hedge (drawn independently) may win. */
  scripted: {
    latencies: number[];
    effective: number[];
    drawn: boolean[];
    modelled: boolean;
    budgetMs: number;
    path: DeadlinePath;
  } | null;
  record: Pick<TurnRecord, 'timings' | 'redisRoundTrips' | 'modelId' | 'deferred' | 'shortlist'> | null;
  /** Estimated prompt tokens of the turn's model requests (hedges left out): characters of each request body / 4, the model sandbox's own estimate. */
  promptTokens?: number;
  outbox: { messages: { state: string; attempts: string[] }[]; timedOut: boolean; waitedMs: number } | null;
  failures: string[];
}

/** A button the Worker handed a contact (a ManyChat `dynamic_block_callback` quick reply). */
export interface IssuedButton {
  caption: string;
  url: string;
  payload: Record<string, unknown>;
}

/** What one turn leaves for the later turns of the same case. */
export interface CaseState {
  /** Model-sandbox call cursor per safety identifier. */
  cursors: Map<string, number>;
  /** The buttons of each turn's reply (by turn index), and which contact alias got them. */
  buttons: Map<number, { contact: string; buttons: IssuedButton[] }>;
  /** Rows named with `pending[].as` → row id. */
  namedRows: Map<string, string>;
}

export function newCaseState(): CaseState {
  return { cursors: new Map(), buttons: new Map(), namedRows: new Map() };
}

/** A turn's observation before anything happened (no delivery, no model call, no turn record). */
export function emptyObservation(turn: CaseTurn, index: number, contactId: string, kind: TurnKind): TurnObservation {
  return {
    index,
    form: turnForm(turn),
    text: turnLabel(turn),
    contactId,
    kind,
    scriptKind: null,
    naive: false,
    primaryTurnId: null,
    targetRowId: null,
    notes: [],
    latencyMs: null,
    replyLatencyMs: null,
    modelMs: 0,
    overheadMs: null,
    modelDetail: [],
    scripted: null,
    record: null,
    outbox: null,
    failures: [],
    deliveries: [],
    decision: null,
    decisionReason: null,
    replyText: '',
    deferred: false,
    staged: [],
    committed: [],
    performed: [],
    apiCalls: [],
    pending: [],
    rows: {},
    modelCalls: 0,
    hedgeCalls: 0,
    lastPrompt: null,
  };
}
