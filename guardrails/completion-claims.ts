import { actionKind } from '../core/actions/index.js';
import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import { pass, veto, type Guardrail } from './guardrail.js';
import { findClaims, type ClaimCategory } from './completion-claim-lexicon.js';

/**
 * No reply may tell the contact that something happened when the turn does not back it: an
 * action that waits for the contact's confirmation or a team member's approval, a write the tool
 * refused, or nothing staged at all. The model is told to say staged actions are "on their way";
 * a worst-case model says "Done, it's been sent!" anyway, in the contact's language.
 *
 * What backs a claim (checked against what this turn staged, before anything is committed):
 * - "sent / on its way / here you go" — an ungated action that messages the contact (a flow);
 * - "tagged / subscribed / removed you" — an ungated tag action;
 * - "saved / recorded / updated" — an ungated field action;
 * - "deleted / erased" — an ungated destructive action (in practice never: destructive tools wait for approval);
 * - "done / all set" — something staged, everything ungated, and no write refused;
 * - "approved / confirmed" — never: no turn approves or confirms anything.
 * An unbacked claim vetoes the turn (the tenant's fallback reply, nothing performed or pinned).
 * What is pending is said by the runtime, not the model (src/approvals/pending-status.ts).
 *
 * Limits: the lexicon (English, Spanish, German, French, Portuguese) is lexical. A claim phrased
 * outside it passes; negated and future/conditional forms ("not sent yet", "once approved it will
 * be sent") are deliberately not claims.
 */
function backs(category: ClaimCategory, staged: readonly StagedAction[], refused: boolean): boolean {
  const ungated = staged.filter((a) => a.gate === 'none');
  const acts = (resourceType: string) => ungated.some((a) => actionKind(a.kind).resource(a.args)?.startsWith(`${resourceType}:`));
  switch (category) {
    case 'send':
      return ungated.some((a) => actionKind(a.kind).messagesContact);
    case 'tag':
      return acts('tag');
    case 'field':
      return acts('field');
    case 'delete':
      return ungated.some((a) => a.effect === 'destructive');
    case 'done':
      return staged.length > 0 && ungated.length === staged.length && !refused;
    case 'approval':
      return false;
  }
}

const WHY: Record<ClaimCategory, string> = {
  send: 'it says something was sent, but nothing ungated was staged to send',
  tag: 'it says a tag was changed, but no ungated tag action was staged',
  field: 'it says something was saved, but no ungated field action was staged',
  delete: 'it says something was deleted, but no ungated destructive action was staged',
  done: 'it says the request is done, but part of it is pending, refused, or nothing was staged',
  approval: 'it says something was approved or confirmed, which no turn can do',
};

function refusedWrite(steps: readonly ModelStepRecord[]): boolean {
  return steps.some((s) => s.toolResults.some((r) => r.status === 'denied' || r.status === 'error'));
}

export const completionClaimsGuardrail: Guardrail = {
  name: 'completion-claims',
  check({ reply, staged, steps }) {
    if (!reply) return pass('no reply');
    const texts = [reply.text, ...(reply.quickReplies ?? [])];
    const refused = refusedWrite(steps);
    const unbacked = texts.flatMap(findClaims).filter((c) => !backs(c.category, staged, refused));
    if (!unbacked.length) return pass('no claim the turn does not back');
    const first = unbacked[0]!;
    return veto(`the reply claims what did not happen ("${first.phrase}"): ${WHY[first.category]}`);
  },
};
