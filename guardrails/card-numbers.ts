/**
 * Payment card numbers in free text: runs of 13–19 digits, optionally grouped by single spaces
 * or dashes, that start with a card network's prefix (IIN) and pass the Luhn check.
 *
 * The prefix check keeps ordinary long numbers out (about one random number in ten passes Luhn
 * alone). Limits: a Luhn-valid 15-digit IMEI starting with 35 looks like a JCB card and is
 * caught; numbers split by other separators ("4111.1111…", one digit per line) or written in
 * words are not.
 */
const CANDIDATE = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g;

/** Card network prefixes: Visa, Mastercard (51–55, 2221–2720), Amex, Discover, JCB, Diners, UnionPay, Maestro. */
function hasCardPrefix(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  const three = Number(digits.slice(0, 3));
  return (
    digits.startsWith('4') ||
    (two >= 51 && two <= 55) ||
    (four >= 2221 && four <= 2720) ||
    two === 34 ||
    two === 37 ||
    digits.startsWith('6011') ||
    digits.startsWith('65') ||
    (three >= 644 && three <= 649) ||
    two === 35 ||
    two === 36 ||
    two === 38 ||
    two === 39 ||
    (three >= 300 && three <= 305) ||
    two === 62 ||
    digits.startsWith('50') ||
    (two >= 56 && two <= 58) ||
    digits.startsWith('6304') ||
    digits.startsWith('67')
  );
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The card numbers found in `text`, masked to their last four digits (never the number itself). */
export function findCardNumbers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.normalize('NFKC').matchAll(CANDIDATE)) {
    // "4111 1111 1111 1111 2" is one candidate; try every run of whole groups in it as well.
    const groups = m[0].split(/[ -]/);
    let hit: string | null = null;
    for (let start = 0; start < groups.length && !hit; start++) {
      let digits = '';
      for (let end = start; end < groups.length && digits.length < 19; end++) {
        digits += groups[end];
        if (digits.length >= 13 && digits.length <= 19 && hasCardPrefix(digits) && luhnValid(digits)) {
          hit = digits;
          break;
        }
      }
    }
    if (hit) found.push(`…${hit.slice(-4)}`);
  }
  return found;
}
