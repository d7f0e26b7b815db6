import type { ClaimTopic } from '../core/actions/action-kind.js';
import { actionKind, findActionKind } from '../core/actions/index.js';
import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import { pass, veto, type Guardrail } from './guardrail.js';
import { findClaims, type Claim, type ClaimCategory } from './completion-claim-lexicon.js';
import { mentionedIn, mentionedWords } from './action-support.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';

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
 * Per resource (issue 28.3): a claim is backed only by a performed action on the resource its
 * sentence names; a sentence that names a gated or refused resource of its category, or names
 * nothing while one exists, is vetoed — so a flow sent does not back "the brochure has been sent"
 * while the brochure waits for a Yes.
 *
 * Limits: the lexicon (en, es, pt, de, fr, it, tr, id: sequence patterns plus completed word
 * forms, docs/languages.md) is lexical. A claim phrased outside it passes; negated,
 * future/conditional forms and questions ("not sent yet", "once approved it will be sent") are
 * deliberately not claims. What is pending is always stated by the runtime's own line.
 */
/** Whether an action is of the category a claim speaks of. */
function ofCategory(category: ClaimCategory, action: StagedAction): boolean {
  const resource = actionKind(action.kind).resource(action.args) ?? '';
  switch (category) {
    case 'send':
      return actionKind(action.kind).messagesContact;
    case 'tag':
      return resource.startsWith('tag:');
    case 'field':
      return resource.startsWith('field:');
    case 'delete':
      return action.effect === 'destructive';
    default:
      return true;
  }
}

/** A refused write: the tool's name and the words of what it was asked to do. */
interface Refused {
  kind: string | null;
  words: string;
}

function refusedWrites(steps: readonly ModelStepRecord[], config: TenantConfig): Refused[] {
  const out: Refused[] = [];
  for (const step of steps) {
    for (const result of step.toolResults) {
      if (result.status !== 'denied' && result.status !== 'error') continue;
      const call = step.toolCalls.find((c) => c.toolCallId === result.toolCallId);
      const input =
        call?.input && typeof call.input === 'object'
          ? Object.values(call.input as Record<string, unknown>).filter((v) => typeof v === 'string')
          : [];
      out.push({ kind: config.tools.find((t) => t.name === result.toolName)?.kind ?? null, words: input.join(' ') });
    }
  }
  return out;
}

function refusedOfCategory(topic: ClaimTopic, refused: Refused): boolean {
  // The refused tool's kind says which claims it speaks to (core/actions). A read tool, or a tool
  // of no kind, speaks to none.
  const kind = refused.kind ? findActionKind(refused.kind) : null;
  return kind?.claims.includes(topic) ?? false;
}

/**
 * Whether the turn backs a claim, per resource: only a performed (ungated) action of the claim's
 * category backs it, and when the claim's sentence names a resource, only an action on that
 * resource. A sentence that names a pending, vetoed or refused resource of the category is never
 * backed ("I've sent you the brochure and the trial pass!" with the pass refused), nor one that
 * names nothing while such an action shares the category (it cannot be tied to what happened).
 */
function backs(
  claim: Claim,
  staged: readonly StagedAction[],
  refused: readonly Refused[],
  config: TenantConfig,
): boolean {
  const { category } = claim;
  if (category === 'approval') return false;
  if (category === 'done') return staged.length > 0 && staged.every((a) => a.gate === 'none') && !refused.length;
  // What is left is a claim about an action's topic (sent, tagged, saved, removed): ClaimTopic.
  const mine = staged.filter((a) => ofCategory(category, a));
  const performed = mine.filter((a) => a.gate === 'none');
  if (!performed.length) return false;
  const named = (a: StagedAction) => mentionedIn(claim.sentence, a, config);
  const notPerformed = mine.filter((a) => a.gate !== 'none');
  const refusedHere = refused.filter((r) => refusedOfCategory(category, r));
  if (notPerformed.some(named)) return false;
  if (refusedHere.some((r) => r.words && mentionedWords(claim.sentence, r.words))) return false;
  if (performed.some(named)) return true;
  // Names nothing we can tie: backed only when nothing of its category waits or was refused.
  return !notPerformed.length && !refusedHere.length;
}

const WHY: Record<ClaimCategory, string> = {
  send: 'it says something was sent, but nothing ungated was staged to send',
  tag: 'it says a tag was changed, but no ungated tag action was staged',
  field: 'it says something was saved, but no ungated field action was staged',
  delete: 'it says something was deleted, but no ungated destructive action was staged',
  done: 'it says the request is done, but part of it is pending, refused, or nothing was staged',
  approval: 'it says something was approved or confirmed, which no turn can do',
};

export const completionClaimsGuardrail: Guardrail = {
  name: 'completion-claims',
  check({ reply, staged, steps, config }) {
    if (!reply) return pass('no reply');
    const texts = [reply.text, ...(reply.quickReplies ?? [])];
    const refused = refusedWrites(steps, config);
    const unbacked = texts.flatMap(findClaims).filter((c) => !backs(c, staged, refused, config));
    if (!unbacked.length) return pass('no claim the turn does not back');
    const first = unbacked[0]!;
    return veto(
      `the reply claims what did not happen ("${first.phrase}"): ${WHY[first.category]} (or not on what its sentence names)`,
    );
  },
};
