import { describe, expect, it } from 'vitest';
import { signCallback, verifyCallback, type CallbackClaim } from './callback-signature.js';

const SECRET = 'callback-test-secret';
const confirm: CallbackClaim = {
  kind: 'confirm',
  tenantId: 'tenant_a',
  contactId: '1001',
  pendingId: 'cf_abc',
  answer: 'yes',
  nonce: 'n0nce',
};
const suggest: CallbackClaim = {
  kind: 'suggest',
  tenantId: 'tenant_a',
  contactId: '1001',
  text: 'Prices',
  nonce: 'n0nce',
};

describe('signCallback / verifyCallback: a button we issued, and only that button', () => {
  it('a signature verifies for the claim it was made for (both kinds), as 64 hex characters', async () => {
    for (const claim of [confirm, suggest]) {
      const sig = await signCallback(SECRET, claim);
      expect(sig).toMatch(/^[0-9a-f]{64}$/);
      expect(await verifyCallback(SECRET, claim, sig)).toBe(true);
    }
  });

  it('every field of a confirm claim is covered: changing any one fails', async () => {
    const sig = await signCallback(SECRET, confirm);
    const edits: Partial<Extract<CallbackClaim, { kind: 'confirm' }>>[] = [
      { tenantId: 'tenant_b' },
      { contactId: '1002' },
      { pendingId: 'cf_abd' },
      { answer: 'no' },
      { nonce: 'n0ncf' },
    ];
    for (const edit of edits)
      expect(await verifyCallback(SECRET, { ...confirm, ...edit } as CallbackClaim, sig)).toBe(false);
  });

  it('every field of a suggest claim is covered, and a suggestion cannot pass for a confirmation', async () => {
    const sig = await signCallback(SECRET, suggest);
    const edits: Partial<Extract<CallbackClaim, { kind: 'suggest' }>>[] = [
      { tenantId: 'tenant_b' },
      { contactId: '1002' },
      { text: 'Refund me' },
      { nonce: 'other' },
    ];
    for (const edit of edits)
      expect(await verifyCallback(SECRET, { ...suggest, ...edit } as CallbackClaim, sig)).toBe(false);
    expect(await verifyCallback(SECRET, { ...confirm, nonce: suggest.nonce }, sig)).toBe(false);
  });

  it('another secret, an altered, truncated, upper-cased or empty signature fails', async () => {
    const sig = await signCallback(SECRET, confirm);
    expect(await verifyCallback('another-secret', confirm, sig)).toBe(false);
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`;
    for (const bad of [flipped, sig.slice(0, 63), sig.toUpperCase(), ''])
      expect(await verifyCallback(SECRET, confirm, bad)).toBe(false);
  });

  it('is deterministic: the same claim and secret give the same signature', async () => {
    expect(await signCallback(SECRET, confirm)).toBe(await signCallback(SECRET, { ...confirm }));
  });
});

describe('buttons across a rotation of SESSION_SECRET', () => {
  const NEXT = 'callback-test-secret-after-rotation';

  it('a button issued before the rotation verifies while the previous secret is kept, and not after', async () => {
    const sig = await signCallback(SECRET, confirm);
    expect(await verifyCallback({ current: NEXT, previous: SECRET }, confirm, sig)).toBe(true);
    expect(await verifyCallback({ current: NEXT }, confirm, sig)).toBe(false);
  });

  it('new buttons are signed with the new secret only', async () => {
    const sig = await signCallback({ current: NEXT, previous: SECRET }, suggest);
    expect(await verifyCallback(NEXT, suggest, sig)).toBe(true);
    expect(await verifyCallback(SECRET, suggest, sig)).toBe(false);
  });
});
