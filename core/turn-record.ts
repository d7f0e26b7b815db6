import type { HistoryEntry } from './history-entry.js';
import type { InboundMessage } from './inbound-message.js';
import type { Reply } from './reply.js';
import type { StagedAction } from './staged-action.js';
import type { Decision, Verdict } from './verdict.js';

export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export interface ToolResultRecord {
  toolCallId: string;
  toolName: string;
  /** Envelope status, or `plain` for plain content, `error` for a thrown tool. */
  status: 'staged' | 'ok' | 'denied' | 'error' | 'plain';
  output: unknown;
}

export interface ModelStepRecord {
  step: number;
  ms: number;
  finishReason: string;
  toolCalls: ToolCallRecord[];
  toolResults: ToolResultRecord[];
  inputTokens?: number;
  outputTokens?: number;
  /** Set when this step's model call was hedged (the same request sent again after `afterMs`): still one step. */
  hedge?: HedgeRecord;
  /**
   * SHA-256 of the request this call sent (src/models/request-digest.ts): a shadow replay reuses
   * the recorded response only for a rebuilt request with the same digest. Absent on older records.
   */
  requestDigest?: string;
}

/** A hedged model call: which of the pair answered, how long each ran (the loser until it was aborted), the winner's tokens. */
export interface HedgeRecord {
  afterMs: number;
  winner: 'primary' | 'hedge' | 'neither';
  primaryMs: number;
  hedgeMs: number;
  primaryAborted: boolean;
  hedgeAborted: boolean;
  inputTokens?: number;
  outputTokens?: number;
}

/** What the contact is sent back (also what a duplicate delivery gets). */
export interface OutgoingReply {
  text: string;
  quickReplies: { caption: string; callback?: { pendingId: string; answer: 'yes' | 'no'; nonce: string } }[];
}

/**
 * What rebuilds the turn's model requests exactly (shadow replay, src/replay/): with the same
 * config (its digest says whether it is), the inbound, this history and this canary, the loop
 * sends the same request bytes, the tools in this order.
 */
export interface ModelRequestRecord {
  /** SHA-256 of the canonical JSON of the tenant config the turn ran with. */
  configDigest: string;
  /** The tool list in the order the model saw it. */
  toolOrder: string[];
  /** The per-turn canary line's token (a secret only for the turn it guarded). */
  canary: string;
  /** The conversation history the prompt was built from. */
  history: HistoryEntry[];
}

export interface TurnRecord {
  turnId: string;
  tenantId: string;
  contactId: string;
  messageKey: string;
  inbound: InboundMessage;
  modelId: string;
  steps: ModelStepRecord[];
  /** The model's structured reply, as it gave it (null when it gave none). */
  modelReply: Reply | null;
  staged: StagedAction[];
  verdicts: Verdict[];
  decision: Decision;
  /** Why the decision was taken, in a sentence (error text, first veto reason, ...). */
  decisionReason: string;
  reply: OutgoingReply;
  /** Actions handed to the outbox, in order (model actions on pass, handoff actions on escalate). */
  committed: StagedAction[];
  /** Gated actions waiting: the contact's confirmation row, and tenant approval rows. */
  pendingConfirmation: string | null;
  approvals: string[];
  deferred: boolean;
  /** commitMs is known only after the record is written: 0 in the stored record, set on the returned one. */
  timings: { totalMs: number; loadMs: number; modelMs: number; guardrailsMs: number; commitMs: number };
  redisRoundTrips: { beforeModel: number; afterModel: number };
  startedAt: string;
  finishedAt: string;
  notes: string[];
  /** Absent on turns recorded before it existed, and when the model was not called. */
  request?: ModelRequestRecord;
  /**
   * The tool shortlist's work on this turn (tools/shortlist.ts), present only when it was active:
   * the tools offered (and the resources of those it narrowed), what it dropped and why, the full
   * menu's estimated tokens and those of what was kept (absent on older records), and whether a
   * refusal widened step 2 to the full menu.
   */
  shortlist?: {
    offered: string[];
    resources: Record<string, string[]>;
    dropped: string[];
    fullTokens: number;
    keptTokens?: number;
    widened: boolean;
  };
}
