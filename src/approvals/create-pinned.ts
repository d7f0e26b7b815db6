import { manyChatTarget, type InboundMessage } from '../../core/inbound-message.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { Manifest } from '../../core/tenant/manifest.js';
import { signTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

export const CONFIRMATION_TTL_MS = 24 * 3600 * 1000;
export const APPROVAL_TTL_MS = 3600 * 1000;

function randomToken(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

/** The approval card: what will change, for whom, and whether it can be undone. */
export function approvalCard(action: StagedAction, inbound: InboundMessage, manifest: Manifest): string {
  const who = inbound.contact.name
    ? `${inbound.contact.name} (contact ${inbound.contactId})`
    : `contact ${inbound.contactId}`;
  const undo = manifest[action.tool]?.undo;
  const reversible = undo ? `Reversible afterwards with "${undo}".` : 'This cannot be undone.';
  return `${action.summary} — for ${who}. ${reversible} Asked in: "${(inbound.text ?? '').slice(0, 200)}"`;
}

/**
 * Turns a passing turn's gated actions into pinned rows: all confirm-gated actions of the turn
 * become one confirmation (one Yes/No pair), each approval-gated action its own approval.
 */
export async function pinGatedActions(input: {
  turnId: string;
  inbound: InboundMessage;
  staged: StagedAction[];
  manifest: Manifest;
  secret: SecretsInput;
  now: Date;
  /** The contact's language for the runtime's later words. */ locale?: string;
}): Promise<{ confirmation: PinnedTerms | null; approvals: PinnedTerms[] }> {
  const { turnId, inbound, now } = input;
  const base = {
    tenantId: inbound.tenantId,
    contactId: inbound.contactId,
    channel: inbound.channel,
    // The contact's channel and window, so the Yes answer, notices and what is performed later have its shape.
    ...manyChatTarget(inbound),
    turnId,
    createdAt: now.toISOString(),
    ...(input.locale ? { locale: input.locale } : {}),
  };
  const confirmActions = input.staged.filter((a) => a.gate === 'confirm');
  const confirmation = confirmActions.length
    ? await signTerms(
        {
          ...base,
          id: `cf_${randomToken()}`,
          kind: 'confirmation',
          actions: confirmActions,
          card: confirmActions.map((a) => a.summary).join('; '),
          nonce: randomToken(),
          expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString(),
        },
        input.secret,
      )
    : null;
  const approvals = await Promise.all(
    input.staged
      .filter((a) => a.gate === 'approval')
      .map((action) =>
        signTerms(
          {
            ...base,
            id: `ap_${randomToken()}`,
            kind: 'approval',
            actions: [action],
            card: approvalCard(action, inbound, input.manifest),
            nonce: randomToken(),
            expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
          },
          input.secret,
        ),
      ),
  );
  return { confirmation, approvals };
}
