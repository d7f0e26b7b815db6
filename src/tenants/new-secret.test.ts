import { describe, expect, it } from 'vitest';
import { randomBase64Url, type FillRandom } from '../../core/security/random-base64url.js';
import { generatePassword } from '../dashboard/auth/users.js';
import { newSecret } from './provisioning.js';

/**
 * Scripted draws: the first is all 0xf8 (base64 index 62, "+", which base64url spells "-"), the
 * next all 0x00 ("A…"). The draws are injected rather than spied on `crypto.getRandomValues`: in
 * the workers project files share a runner, and another file's leftover async work may draw too.
 */
function dashFirstThenZeros(): { fill: FillRandom; draws: () => number } {
  let draws = 0;
  const fill: FillRandom = (array) => array.fill(draws++ === 0 ? 0xf8 : 0x00);
  return { fill, draws: () => draws };
}

describe('generated secrets never start with a dash (a command line would read them as an option)', () => {
  it('a draw whose text would start with "-" is redrawn, and the redraw is what is returned', () => {
    const script = dashFirstThenZeros();
    const text = randomBase64Url(32, script.fill);
    expect(script.draws()).toBe(2);
    expect(text).toBe('A'.repeat(43));
  });

  it('a draw that starts with anything else is kept as it is', () => {
    let draws = 0;
    const text = randomBase64Url(3, (array) => {
      draws += 1;
      return array.fill(0x08); // 0x080808 → "CAgI"
    });
    expect(draws).toBe(1);
    expect(text).toBe('CAgI');
  });

  it('newSecret: 43 base64url characters, never a leading dash', () => {
    for (let i = 0; i < 64; i += 1) expect(newSecret()).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });

  it('generatePassword: 24 base64url characters, never a leading dash', () => {
    for (let i = 0; i < 64; i += 1) expect(generatePassword()).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{23}$/);
  });
});
