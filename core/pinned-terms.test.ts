import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { callDigest, PinnedTermsSchema, signTerms, verifyTerms, type PinnedTerms } from './pinned-terms.js';
import type { StagedAction } from './staged-action.js';
import { signFor } from './security/signing-keys.js';

const SECRET = 'pinned-terms-test-secret';
const action = (tag: string, tool = 'tag_contact'): StagedAction => ({
  id: `a_${tag}`,
  tool,
  kind: 'add_tag',
  args: { tag },
  effect: 'write',
  idempotent: true,
  gate: 'confirm',
  summary: `add tag "${tag}"`,
});

function terms(actions: StagedAction[]): Omit<PinnedTerms, 'sig' | 'pinned' | 'callDigests'> {
  return {
    id: 'cf_1',
    kind: 'confirmation',
    tenantId: 't1',
    contactId: '7',
    channel: 'manychat',
    turnId: 'turn_1',
    actions,
    card: 'c',
    nonce: 'n',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  };
}

/** Signs exactly what it is given, as a buggy writer holding the secret would (the check must not trust `pinned`). */
async function signVerbatim(unsigned: Omit<PinnedTerms, 'sig'>): Promise<PinnedTerms> {
  return { ...unsigned, sig: await signFor(SECRET, 'pinned-terms', canonicalJson(unsigned)) };
}

describe('pinned terms', () => {
  it('signing pins each call as tool + canonical JSON and one digest per call', async () => {
    const signed = await signTerms(terms([action('a'), { ...action('b'), args: { z: 1, tag: 'b' } }]), SECRET);
    expect(signed.pinned).toEqual([
      { tool: 'tag_contact', args: '{"tag":"a"}' },
      { tool: 'tag_contact', args: '{"tag":"b","z":1}' },
    ]);
    expect(signed.callDigests).toEqual([
      await callDigest(action('a')),
      await callDigest({ kind: 'add_tag', args: { tag: 'b', z: 1 } }),
    ]);
    expect(signed.sig).toMatch(/^[0-9a-f]{64}$/);
    expect(PinnedTermsSchema.safeParse(signed).success).toBe(true);
    expect(await verifyTerms(signed, SECRET)).toBe(true);
  });

  it('the call digest is the kind and the canonical arguments: key order does not matter, kind and values do', async () => {
    expect(await callDigest({ kind: 'add_tag', args: { a: 1, b: 2 } })).toBe(
      await callDigest({ kind: 'add_tag', args: { b: 2, a: 1 } }),
    );
    expect(await callDigest({ kind: 'add_tag', args: { tag: 'x' } })).not.toBe(
      await callDigest({ kind: 'remove_tag', args: { tag: 'x' } }),
    );
    expect(await callDigest({ kind: 'add_tag', args: { tag: 'x' } })).not.toBe(
      await callDigest({ kind: 'add_tag', args: { tag: 'y' } }),
    );
    expect(await callDigest({ kind: 'add_tag', args: { tag: 'x' } })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('any change after signing, a truncated or another signature, does not verify', async () => {
    const signed = await signTerms(terms([action('a')]), SECRET);
    expect(await verifyTerms({ ...signed, nonce: 'other' }, SECRET)).toBe(false);
    expect(await verifyTerms({ ...signed, sig: signed.sig.slice(0, 63) }, SECRET)).toBe(false);
    expect(await verifyTerms({ ...signed, sig: '' }, SECRET)).toBe(false);
    expect(await verifyTerms(signed, `${SECRET}x`)).toBe(false);
  });

  it('a signed row whose pinned calls are not its actions does not verify (another tool, other arguments, one missing)', async () => {
    const signed = await signTerms(terms([action('a'), action('b')]), SECRET);
    const { sig: _sig, ...unsigned } = signed;
    expect(await verifyTerms(await signVerbatim(unsigned), SECRET)).toBe(true);
    expect(
      await verifyTerms(
        await signVerbatim({ ...unsigned, pinned: [unsigned.pinned[0]!, { tool: 'other_tool', args: '{"tag":"b"}' }] }),
        SECRET,
      ),
    ).toBe(false);
    expect(
      await verifyTerms(
        await signVerbatim({
          ...unsigned,
          pinned: [unsigned.pinned[0]!, { tool: 'tag_contact', args: '{"tag":"c"}' }],
        }),
        SECRET,
      ),
    ).toBe(false);
    expect(await verifyTerms(await signVerbatim({ ...unsigned, pinned: [unsigned.pinned[0]!] }), SECRET)).toBe(false);
    expect(
      await verifyTerms(
        await signVerbatim({ ...unsigned, pinned: [...unsigned.pinned, { tool: 'tag_contact', args: '{"tag":"c"}' }] }),
        SECRET,
      ),
    ).toBe(false);
  });
});
