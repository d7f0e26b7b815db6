import type { StagedAction } from '../core/staged-action.js';
import { envelope, type ToolEnvelope } from '../core/tool-envelope.js';

/** What the model is told about an action it staged: never that it happened. */
export function stagedMessage(action: StagedAction): ToolEnvelope {
  const what =
    action.gate === 'confirm'
      ? `Staged, not done: ${action.summary}. The contact will be asked to confirm with Yes/No buttons; ask them to confirm.`
      : action.gate === 'approval'
        ? `Staged, not done: ${action.summary}. It waits for a team member's approval; tell the contact it will be reviewed.`
        : `Staged, not done: ${action.summary}. It happens only if this turn passes review.`;
  return envelope.staged(what, [{ actionId: action.id, kind: action.kind, summary: action.summary }]);
}
