import { findActionKind } from './actions/index.js';

/**
 * The typed tool result. A tool returns plain content or exactly `{ content, effects, status }`.
 * Recognition is strict: any other shape is plain content, passed through unchanged, so a read
 * result that happens to contain a `status` field cannot pass for a staging outcome; so is an
 * envelope whose effects are not each a well-formed effect of a known action kind.
 */
export type ToolStatus = 'staged' | 'ok' | 'denied' | 'error';

export interface ToolEffect {
  actionId: string;
  kind: string;
  summary: string;
}

export interface ToolEnvelope {
  content: string;
  effects: ToolEffect[];
  status: ToolStatus;
}

const STATUSES: ReadonlySet<string> = new Set(['staged', 'ok', 'denied', 'error']);

/** An effect is exactly `{ actionId, kind, summary }`, strings, with a kind the action registry knows. */
function isToolEffect(value: unknown): value is ToolEffect {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value).sort();
  if (keys.length !== 3 || keys[0] !== 'actionId' || keys[1] !== 'kind' || keys[2] !== 'summary') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.actionId === 'string' &&
    typeof v.summary === 'string' &&
    typeof v.kind === 'string' &&
    findActionKind(v.kind) !== null
  );
}

export function isToolEnvelope(value: unknown): value is ToolEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value).sort();
  if (keys.length !== 3 || keys[0] !== 'content' || keys[1] !== 'effects' || keys[2] !== 'status') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.content === 'string' &&
    Array.isArray(v.effects) &&
    v.effects.every(isToolEffect) &&
    typeof v.status === 'string' &&
    STATUSES.has(v.status)
  );
}

/** A status-bearing object that is not an envelope: worth a log line, never worth trusting. */
export function isNearMissEnvelope(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'status' in value && !isToolEnvelope(value);
}

export const envelope = {
  staged: (content: string, effects: ToolEffect[]): ToolEnvelope => ({ content, effects, status: 'staged' }),
  ok: (content: string): ToolEnvelope => ({ content, effects: [], status: 'ok' }),
  denied: (content: string): ToolEnvelope => ({ content, effects: [], status: 'denied' }),
  error: (content: string): ToolEnvelope => ({ content, effects: [], status: 'error' }),
};
