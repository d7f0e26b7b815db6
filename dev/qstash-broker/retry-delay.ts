/**
 * `Upstash-Retry-Delay` expressions, e.g. `pow(2, retried) * 1000` or `max(1000, 500 * retried)`.
 * A tiny recursive-descent parser instead of `eval`/`new Function`: the header comes from the network,
 * and QStash only allows numbers, `retried`, + - * / ( ) and a fixed set of functions.
 */
export type RetryDelayFn = (retried: number) => number;

const FUNCTIONS: Record<string, { arity: [number, number]; fn: (...args: number[]) => number }> = {
  pow: { arity: [2, 2], fn: (a, b) => Math.pow(a ?? 0, b ?? 0) },
  sqrt: { arity: [1, 1], fn: (a) => Math.sqrt(a ?? 0) },
  abs: { arity: [1, 1], fn: (a) => Math.abs(a ?? 0) },
  exp: { arity: [1, 1], fn: (a) => Math.exp(a ?? 0) },
  floor: { arity: [1, 1], fn: (a) => Math.floor(a ?? 0) },
  ceil: { arity: [1, 1], fn: (a) => Math.ceil(a ?? 0) },
  round: { arity: [1, 1], fn: (a) => Math.round(a ?? 0) },
  min: { arity: [1, Infinity], fn: Math.min },
  max: { arity: [1, Infinity], fn: Math.max },
};

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_]\w*)|([-+*/(),]))/y;

function tokenize(src: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break;
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) throw new Error(`unexpected character at ${start}: ${JSON.stringify(src.slice(start, start + 10))}`);
    tokens.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return tokens;
}

/** Compiles the expression once at publish time so a bad header is a 400, not a failure at retry time. */
export function compileRetryDelay(src: string): RetryDelayFn {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const expect = (t: string) => {
    if (tokens[pos] !== t)
      throw new Error(
        `expected "${t}" but found ${tokens[pos] === undefined ? 'end of expression' : `"${tokens[pos]}"`}`,
      );
    pos++;
  };

  const primary = (): RetryDelayFn => {
    const t = tokens[pos++];
    if (t === undefined) throw new Error('unexpected end of expression');
    if (/^\d/.test(t)) {
      const n = Number(t);
      return () => n;
    }
    if (t === 'retried') return (r) => r;
    if (t === '(') {
      const inner = sum();
      expect(')');
      return inner;
    }
    const f = FUNCTIONS[t];
    if (!f) throw new Error(`unknown identifier "${t}"`);
    expect('(');
    const args: RetryDelayFn[] = [sum()];
    while (peek() === ',') {
      pos++;
      args.push(sum());
    }
    expect(')');
    if (args.length < f.arity[0] || args.length > f.arity[1])
      throw new Error(`${t}() takes ${f.arity[0]}${f.arity[1] === f.arity[0] ? '' : '+'} argument(s)`);
    return (r) => f.fn(...args.map((a) => a(r)));
  };
  const unary = (): RetryDelayFn => {
    if (peek() === '-') {
      pos++;
      const inner = unary();
      return (r) => -inner(r);
    }
    return primary();
  };
  const product = (): RetryDelayFn => {
    let left = unary();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[pos++];
      const l = left;
      const right = unary();
      left = op === '*' ? (r) => l(r) * right(r) : (r) => l(r) / right(r);
    }
    return left;
  };
  function sum(): RetryDelayFn {
    let left = product();
    while (peek() === '+' || peek() === '-') {
      const op = tokens[pos++];
      const l = left;
      const right = product();
      left = op === '+' ? (r) => l(r) + right(r) : (r) => l(r) - right(r);
    }
    return left;
  }

  if (tokens.length === 0) throw new Error('empty expression');
  const fn = sum();
  if (pos !== tokens.length) throw new Error(`unexpected "${tokens[pos]}"`);
  return fn;
}
