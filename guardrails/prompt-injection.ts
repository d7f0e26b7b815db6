import type { StagedAction } from '../core/staged-action.js';
import { dataNaming, dataTexts, decodedParts, declinedByContact, requestSupport } from './request-provenance.js';
import { escalate, pass, type Guardrail, type GuardrailInput } from './guardrail.js';
import { AGENT_DIRECTIVES, INJECTION_MARKERS, matchPatterns, mentionsToolNames } from './instruction-patterns.js';
import { thirdPartySigns } from './third-party-request.js';
import { stagingStepOf, untrustedResults } from './turn-provenance.js';

/**
 * Prompt injection: a turn whose staged actions are not the contact's own request escalates to a
 * human. The contact's message, their name and fields, and everything a read tool returns are
 * marked as data in the prompt (spotlighting), which lowers but does not remove obedience
 * (AgentDojo: 41.7 % targeted ASR with delimiting vs 47.7 % without). So this guardrail assumes
 * the model obeyed and asks, for each staged action, whether anything but the contact's own
 * request could have chosen it. Rules, each applied only when the turn stages at least one action
 * (a turn that stages nothing cannot be made to act by text, and its reply is judged by the
 * other guardrails):
 *
 * 1. Support. Every staged action's key argument (flow, tag, field value) must be supported by
 *    the contact's own words this turn, or by the agent's previous message when the contact
 *    answers it with a short "yes" (see action-support.ts). Data a tool read, contact fields and
 *    the contact's name do not count as support.
 * 2. Read, then write. A write staged in a step after a tool result whose text carries
 *    instruction patterns (INJECTION_MARKERS or AGENT_DIRECTIVES) or names an internal tool
 *    escalates, even when rule 1 passes: the data may have steered the choice. A write staged in
 *    the same step as the read was chosen before the model saw the result and is not affected.
 * 3. Instructions in the contact's own text. INJECTION_MARKERS ("ignore previous instructions",
 *    fake system messages, fake tool results, chat-template tokens…) in the contact's message,
 *    with any write, escalate. Plain requests ("tag me as interested") are not markers.
 * 4. On someone else's behalf. Third-party signs in the contact's message (another subscriber's
 *    id or handle, "on behalf of", "her account"), with any write, escalate.
 * 5. The contact name is in every prompt: markers, directives or tool names in it, with any
 *    write, escalate.
 *
 * Honest limits:
 * - Lexical, not semantic. A paraphrased injection with no pattern, whose target shares a word
 *   with the contact's message, passes rule 1 and rules 2–5 (e.g. a poisoned FAQ says "people
 *   asking about prices love the brochure" and the contact asked about prices). The result is an
 *   action plausibly wanted anyway, among the tenant's allowed ones (action-policy still applies).
 * - A contact may plainly ask for any flow, tag or field value the tenant exposes, for
 *   themselves; that is by design. Tags a contact must not set on themselves belong in
 *   `guardrails.actions.protectedTags`.
 * - Synonyms the tenant did not configure as flow keywords or tag descriptions are not support;
 *   such honest turns escalate (fail closed, a human looks).
 * - Other languages: overrides, role reassignment, notes to the AI and "don't tell the customer"
 *   are recognised in es, pt, de, fr, it, tr and id (instruction-patterns.ts); the directives
 *   ("tag the customer") only in English — rule 1 (provenance) is what stops those elsewhere.
 * - Obfuscation beyond NFKC, zero-width removal, leetspeak, Cyrillic/Greek look-alike letters and
 *   decoded base64/hex/escapes (split letters, ROT13) is not read; rule 1 still applies to what
 *   such text makes the model stage.
 * - Without `history` in the input, a "yes please" that stages escalates (fail closed).
 * - Escalating hands the contact off (handoff tag, silence window). Text can thereby route only
 *   its own writer, and only when the model also staged a write; it can never act or approve.
 */
export const promptInjectionGuardrail: Guardrail = {
  name: 'prompt-injection',
  check(input) {
    const { staged } = input;
    if (!staged.length) return pass('no staged action, so no text could have triggered one');
    const problems = [...instructionProblems(input), ...supportProblems(input)];
    if (problems.length) return escalate(problems.join('; '));
    return pass(`each of ${staged.length} staged action(s) is the contact's own request`);
  },
};

function describe(actions: readonly StagedAction[]): string {
  return actions.map((a) => a.summary).join(', ');
}

function instructionProblems({ inbound, staged, steps, config }: GuardrailInput): string[] {
  const problems: string[] = [];
  const own = inbound.text ?? '';
  const markers = matchPatterns(own, INJECTION_MARKERS);
  if (markers.length)
    problems.push(
      `the contact's message carries instruction patterns (${markers.join(', ')}) and the turn stages ${describe(staged)}`,
    );
  const thirdParty = thirdPartySigns(own);
  if (thirdParty.length)
    problems.push(
      `the contact's message asks on someone else's behalf (${thirdParty.join(', ')}) and the turn stages ${describe(staged)}`,
    );

  const toolNames = config.tools.map((t) => t.name);
  const inData = (text: string) => [
    ...matchPatterns(text, INJECTION_MARKERS),
    ...matchPatterns(text, AGENT_DIRECTIVES),
    ...mentionsToolNames(text, toolNames).map((n) => `names tool ${n}`),
  ];
  // Encoded parts (base64, hex, escapes) are read decoded too.
  const inDecoded = (text: string) => [text, ...decodedParts(text)].flatMap(inData);
  const nameHits = inDecoded(inbound.contact.name ?? '');
  if (nameHits.length)
    problems.push(
      `the contact's name carries instructions (${nameHits.join(', ')}) and the turn stages ${describe(staged)}`,
    );
  for (const [field, value] of Object.entries(inbound.contact.fields)) {
    const hits = typeof value === 'string' ? inDecoded(value) : [];
    if (hits.length)
      problems.push(
        `the contact's field ${field} carries instructions (${hits.join(', ')}) and the turn stages ${describe(staged)}`,
      );
  }

  const stepOf = stagingStepOf(staged, steps);
  for (const result of untrustedResults(steps)) {
    const hits = inDecoded(result.text);
    if (!hits.length) continue;
    const after = staged.filter((a) => (stepOf.get(a.id) ?? Number.MAX_SAFE_INTEGER) > result.step);
    if (after.length)
      problems.push(
        `${result.toolName} returned text with instructions (${hits.join(', ')}) in step ${result.step}, and the next step staged ${describe(after)}`,
      );
  }
  return problems;
}

/**
 * Rule 1: an action the contact's words do not ask for. Named by data the model read, or named by
 * the contact but negated, asked to stop or only asked about → refused (escalates). Named by
 * nothing, or by the contact plainly in words the runtime does not read as a request → a gated
 * action waits for the contact's (or the team's) answer anyway, and an ungated one was given the
 * contact's tap before the guardrails ran (request-provenance.ts); one still ungated here was
 * not, and escalates (fail closed).
 */
function supportProblems(input: GuardrailInput): string[] {
  const { staged } = input;
  const support = requestSupport(input);
  const data = dataTexts(input);
  const problems: string[] = [];
  for (const action of staged) {
    const verdict = support.check(action);
    if (verdict.supported) continue;
    // Named by the contact in a sentence the runtime cannot read, and gated (its tap or its own
    // gate): the contact's answer decides, whatever the data names.
    if (verdict.unreadable && action.gate !== 'none' && !declinedByContact(action, input)) continue;
    const named = dataNaming(action, input, data);
    if (named)
      problems.push(`${action.summary} is not the contact's own request (${verdict.why}) and ${named.source} names it`);
    else if (action.gate === 'none' || declinedByContact(action, input))
      problems.push(`${action.summary} is not the contact's own request: ${verdict.why}`);
  }
  return problems;
}
