/** What the runner saw of one turn, in the shape expectations are checked against, and how it is printed. */

export interface ActionView {
  kind: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface CallView {
  call: string;
  path: string;
  /** When the sandbox received it (ISO). */
  at?: string;
  status: number;
  outcome: string;
  flow?: string;
  tag?: string;
  field?: string;
  value?: unknown;
  text?: string;
  /** passThreadControl: the app the thread went to. */
  targetAppId?: string;
}

export interface DeliveryView {
  status: number;
  ms: number;
  turnId: string | null;
  duplicateOf: string | null;
  deferred: boolean;
  /** What the contact was shown (the Dynamic Block's messages); null for a tenant API call. */
  replyText: string | null;
  /** x-confirmation-outcome of a Yes/No press (confirmed, declined, already-answered, …). */
  outcome?: string | null;
  error?: string;
}

/** One pinned call of a confirmation or approval row (a row that pins two calls gives two views). */
export interface PendingView {
  id: string;
  kind: 'confirmation' | 'approval';
  tool: string;
  /** The pinned canonical JSON, parsed. */
  args: Record<string, unknown>;
  status: string;
  createdAt: string;
  expiresAt: string;
}

export interface Observed {
  deliveries: DeliveryView[];
  /** The deliveries were sent concurrently (statuses then compare in any order). */
  concurrent?: boolean;
  decision: string | null;
  decisionReason: string | null;
  /** What the contact was told: the webhook's reply; for a tenant decision, the texts sent to the contact. */
  replyText: string;
  deferred: boolean;
  staged: ActionView[];
  committed: ActionView[];
  /** Successful ManyChat calls for the contact, in order. */
  performed: CallView[];
  /** Every ManyChat call for the contact. */
  apiCalls: CallView[];
  /** Pinned calls of the rows the turn created. */
  pending: PendingView[];
  /** Statuses of the case's named rows after the turn (null: the row was never seen). */
  rows: Record<string, string | null>;
  modelCalls: number;
  lastPrompt: string | null;
  /** The tool names the turn's first model request offered (step 1's menu) (absent: not observed on this channel; null: no model call). */
  firstTools?: string[] | null;
  /** Notifications the turn tenant's receiver got during the turn (absent: the tenant has no receiver). */
  notifications?: { type: string; body: string }[];
  /** The turn record's shortlist (null: the full menu was offered). */
  shortlist?: { offered: string[]; widened: boolean } | null;
  /** The run turned the shortlist off (`--shortlist off`): a `shortlist` expectation then asks for the full menu. */
  shortlistOff?: boolean;
}

export const j = (v: unknown) => JSON.stringify(v);
export const list = (items: string[]) => `[${items.join(', ')}]`;

const MAX_ARGS_SHOWN = 200;

export function formatAction(a: { kind: string; tool?: string; args?: Record<string, unknown> }): string {
  const full = a.args && Object.keys(a.args).length ? j(a.args) : '';
  // A deferred reply's args carry its signed buttons: long, and not what a reader compares.
  const args = full.length > MAX_ARGS_SHOWN ? `${full.slice(0, MAX_ARGS_SHOWN)}…` : full;
  return `${a.kind}${a.tool ? `(${a.tool})` : ''}${args}`;
}

export function formatCall(c: Partial<CallView> & { call: string }): string {
  const key =
    c.flow ??
    c.tag ??
    (c.field !== undefined ? `${c.field}=${j(c.value)}` : undefined) ??
    (c.text !== undefined ? j(c.text.slice(0, 40)) : undefined);
  const status = c.status !== undefined ? ` ${c.status}${c.outcome === 'fault' ? ' fault' : ''}` : '';
  return `${c.call}${key !== undefined ? `(${key})` : ''}${status}`;
}

export function formatPending(p: PendingView): string {
  const mins = (Date.parse(p.expiresAt) - Date.parse(p.createdAt)) / 60_000;
  const expiry = Number.isFinite(mins)
    ? `expires in ${Math.round(mins)} min`
    : `no readable expiry (${j(p.expiresAt)})`;
  return `${p.kind} ${p.tool}${j(p.args)} ${p.status}, ${expiry}`;
}
