import { describe, expect, it } from 'vitest';
import { findCardNumbers, luhnValid } from './card-numbers.js';

/** `prefix` padded with zeros to `length - 1` digits, then the Luhn check digit. */
function card(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  for (let d = 0; d <= 9; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable');
}

describe('luhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['79927398713', true],
    ['79927398710', false],
    ['0', true],
    ['18', true],
    ['26', true],
    ['59', true],
    ['4111a11111111111', false],
    ['4111/11111111111', false],
    // A character just past '9' or just before '0' is not a digit even when the sum would pass.
    [':', false],
    ['10/', false],
  ])('%s → %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });
});

describe('findCardNumbers: a network prefix and the Luhn check', () => {
  it.each([
    ['Visa', '4'],
    ['Mastercard 51', '51'],
    ['Mastercard 55', '55'],
    ['Mastercard 2221', '2221'],
    ['Mastercard 2720', '2720'],
    ['Amex 34', '34'],
    ['Amex 37', '37'],
    ['Discover 6011', '6011'],
    ['Discover 65', '65'],
    ['Discover 644', '644'],
    ['Discover 649', '649'],
    ['JCB 35', '35'],
    ['Diners 36', '36'],
    ['Diners 38', '38'],
    ['Diners 39', '39'],
    ['Diners 300', '300'],
    ['Diners 305', '305'],
    ['UnionPay 62', '62'],
    ['Maestro 50', '50'],
    ['Maestro 56', '56'],
    ['Maestro 58', '58'],
    ['Maestro 6304', '6304'],
    ['Maestro 67', '67'],
  ])('finds %s', (_name, prefix) => {
    const number = card(prefix);
    expect(findCardNumbers(`my card is ${number} thanks`)).toEqual([`…${number.slice(-4)}`]);
  });

  it.each(['1', '2220', '2721', '306', '31', '33', '59', '6010', '6012', '61', '643', '63', '66', '68', '7', '8', '9'])(
    'ignores a Luhn-valid number starting %s (no network)',
    (prefix) => {
      expect(findCardNumbers(`order ${card(prefix)}`)).toEqual([]);
    },
  );

  it('finds numbers grouped by spaces or dashes, and several in one text', () => {
    expect(findCardNumbers('4111 1111 1111 1111 and 5500-0000-0000-0004')).toEqual(['…1111', '…0004']);
  });

  it('lengths 13 and 19 are cards, 12 and 20 digits are not', () => {
    expect(findCardNumbers(card('4', 13))).toEqual([`…${card('4', 13).slice(-4)}`]);
    expect(findCardNumbers(card('4', 19))).toEqual([`…${card('4', 19).slice(-4)}`]);
    expect(findCardNumbers(card('4', 12))).toEqual([]);
    expect(findCardNumbers(card('4', 20))).toEqual([]);
  });

  it('a card followed by one more group is still found (every run of whole groups is tried)', () => {
    expect(findCardNumbers('4111 1111 1111 1111 2')).toEqual(['…1111']);
    expect(findCardNumbers('12 4111 1111 1111 1111')).toEqual(['…1111']);
  });

  it('a number that fails Luhn, or runs into more digits or a dash before it, is not a card', () => {
    expect(findCardNumbers('4111111111111112')).toEqual([]);
    expect(findCardNumbers('-4111111111111111')).toEqual([]);
    expect(findCardNumbers('4111111111111111999999')).toEqual([]);
  });

  it('a short Luhn-valid group inside a longer number is not a card on its own', () => {
    // "42" passes Luhn and starts like a Visa, but only 13–19 digits make a card.
    expect(findCardNumbers('42 1111111111111')).toEqual([]);
  });

  it('full-width digits are read (NFKC)', () => {
    expect(findCardNumbers('４１１１１１１１１１１１１１１１')).toEqual(['…1111']);
  });
});
