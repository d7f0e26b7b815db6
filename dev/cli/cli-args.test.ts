import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from './cli-args.js';

const options = { 'admin-secret': { type: 'string' }, force: { type: 'boolean' } } as const;

function usageErrorOf(argv: string[]): string {
  try {
    parseCommandLine(argv, options);
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error('expected a usage error');
}

describe('parseCommandLine', () => {
  it('a value that starts with a dash: says how to pass it, not that the option takes no value', () => {
    // A generated base64url secret may start with "-"; the operator pastes it after the option.
    const message = usageErrorOf(['config', 'get', 't', '--admin-secret', '-w9adYkeRDik']);
    expect(message).toContain('--admin-secret');
    expect(message).toBe("--admin-secret's value starts with a dash: write it as --admin-secret=<value>");
    // Never echoed: the value may be a secret.
    expect(message).not.toContain('w9adYkeRDik');
  });

  it('the --option=value form takes a value that starts with a dash', () => {
    const { values } = parseCommandLine(['--admin-secret=-w9adYkeRDik'], options);
    expect(values['admin-secret']).toBe('-w9adYkeRDik');
  });

  it('a missing value and a value given to a flag are named as such', () => {
    expect(usageErrorOf(['--admin-secret'])).toBe('--admin-secret needs a value');
    expect(usageErrorOf(['--force=yes'])).toBe('--force takes no value');
    expect(usageErrorOf(['--nope'])).toBe('unknown option --nope');
  });
});
