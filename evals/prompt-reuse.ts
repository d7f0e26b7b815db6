import { safetyIdentifierFor, type RecordedModelCall } from '../dev/model-sandbox.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';

/**
 * What a provider's prompt cache could reuse: for each model request of a tenant after its
 * first, the share of the prompt (the tool list, then the messages, as sent) that is
 * byte-identical, from the start, to the tenant's previous request. Measured on the request
 * bodies the model sandbox recorded.
 */
export function promptText(body: Record<string, unknown> | null): string {
  if (!body) return '';
  // Tools are rendered ahead of the messages by the provider; both in the order they were sent.
  return JSON.stringify([body.tools ?? [], body.messages ?? []]);
}

/** Estimated prompt tokens of one request: characters of its body / 4 (what the model sandbox reports as usage). */
export function promptTokensOf(body: Record<string, unknown> | null): number {
  return body ? Math.ceil(JSON.stringify(body).length / 4) : 0;
}

export function commonPrefixShare(previous: string, current: string): number {
  if (!current.length) return 0;
  const n = Math.min(previous.length, current.length);
  let i = 0;
  while (i < n && previous.charCodeAt(i) === current.charCodeAt(i)) i++;
  return i / current.length;
}

/** The request bodies of the case's tenant's model calls, in the order sent (hedges left out). */
export function tenantRequestBodies(env: EvalEnvironment, world: CaseWorld): Record<string, unknown>[] {
  if (!env.model) return [];
  const calls: RecordedModelCall[] = [...world.contacts.values()].flatMap((contactId) =>
    env.model!.calls({ safetyIdentifier: safetyIdentifierFor(world.tenantId, contactId) }),
  );
  return (
    calls
      // A hedge repeats its call's request byte for byte: counting it would flatter the figure.
      .filter((c) => c.request && !c.hedge)
      .sort((a, b) => a.seq - b.seq)
      .map((c) => c.request as Record<string, unknown>)
  );
}

/** One share per request of the case's tenant after its first (empty without recorded bodies). */
export function promptReuseShares(bodies: readonly Record<string, unknown>[]): number[] {
  const prompts = bodies.map(promptText);
  return prompts.slice(1).map((p, i) => commonPrefixShare(prompts[i]!, p));
}
