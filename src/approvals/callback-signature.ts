import { signFor, verifyFor, type SecretsInput } from '../../core/security/signing-keys.js';

/**
 * Button payloads the agent hands out (ManyChat `dynamic_block_callback`) come back to the
 * webhook without the tenant's secret header, so each carries an HMAC over everything it claims.
 * A forged or edited button fails. Two kinds:
 * - `confirm`: a Yes/No on a pending confirmation row (tenant, contact, row, answer, the row's
 *   single-use nonce);
 * - `suggest`: a quick reply the model suggested; pressing it sends its caption as the contact's
 *   next message (tenant, contact, caption, a nonce that makes the press one delivery).
 */
export type CallbackClaim =
  | { kind: 'confirm'; tenantId: string; contactId: string; pendingId: string; answer: 'yes' | 'no'; nonce: string }
  | { kind: 'suggest'; tenantId: string; contactId: string; text: string; nonce: string };

function claimText(claim: CallbackClaim): string {
  return claim.kind === 'confirm'
    ? ['v1', 'confirm', claim.tenantId, claim.contactId, claim.pendingId, claim.answer, claim.nonce].join('\n')
    : ['v1', 'suggest', claim.tenantId, claim.contactId, claim.text, claim.nonce].join('\n');
}

/** Signed with the callback key of the current SESSION_SECRET. */
export function signCallback(secret: SecretsInput, claim: CallbackClaim): Promise<string> {
  return signFor(secret, 'callback', claimText(claim));
}

/** Under the current secret, or the previous one during a rotation; constant time. */
export function verifyCallback(secret: SecretsInput, claim: CallbackClaim, sig: string): Promise<boolean> {
  return verifyFor(secret, 'callback', claimText(claim), sig);
}
