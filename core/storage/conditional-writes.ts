/**
 * A batch of writes that happens atomically and only once: a Lua script checks that the guard
 * key does not exist, then runs every queued command; if the key exists, nothing is written.
 * Keys travel in KEYS (so the script declares every key it touches, as Upstash expects) and
 * commands refer to them by index; every argument is a string, so Redis sees exactly what a
 * MULTI would have sent.
 */
type Arg = string | { key: number };

export class ConditionalWrites {
  readonly keys: string[] = [];
  private readonly ops: Arg[][] = [];

  constructor(readonly guardKey: string) {
    this.keys.push(guardKey);
  }

  private ref(key: string): { key: number } {
    let index = this.keys.indexOf(key);
    if (index < 0) index = this.keys.push(key) - 1;
    return { key: index + 1 };
  }

  /** Queues `command key ...args`. */
  call(command: string, key: string, ...args: (string | number)[]): this {
    this.ops.push([command, this.ref(key), ...args.map(String)]);
    return this;
  }

  get script(): string {
    return CONDITIONAL_WRITES_SCRIPT;
  }

  get argv(): string[] {
    return [JSON.stringify(this.ops)];
  }
}

const CONDITIONAL_WRITES_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for _, op in ipairs(cjson.decode(ARGV[1])) do
  local args = {}
  for i, a in ipairs(op) do
    if type(a) == 'table' then args[i] = KEYS[a.key] else args[i] = a end
  end
  redis.call(unpack(args))
end
return 1
`;
