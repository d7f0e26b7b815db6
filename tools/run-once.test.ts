import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runEachCallOnce } from './run-once.js';

describe('identical calls in one turn run once', () => {
  it('a repeat with the same canonical arguments gets the first result without running again; other arguments run', async () => {
    let runs = 0;
    const tools = runEachCallOnce({
      count: tool({
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => ({ run: ++runs, sum: a + b }),
      }),
      end: tool({ inputSchema: z.object({}) }),
    });
    const options = { toolCallId: 'x', messages: [], context: {} };
    const first = await tools.count!.execute!({ a: 1, b: 2 }, options);
    const again = await tools.count!.execute!({ b: 2, a: 1 }, options);
    const other = await tools.count!.execute!({ a: 2, b: 2 }, options);
    expect(first).toEqual({ run: 1, sum: 3 });
    expect(again).toBe(first);
    expect(other).toEqual({ run: 2, sum: 4 });
    expect(runs).toBe(2);
    // A tool without execute (the reply) is left as it is.
    expect(tools.end!.execute).toBeUndefined();
  });
  it('each turn has its own memory', async () => {
    let runs = 0;
    const make = () => runEachCallOnce({ t: tool({ inputSchema: z.object({}), execute: async () => ++runs }) });
    const options = { toolCallId: 'x', messages: [], context: {} };
    await make().t!.execute!({}, options);
    await make().t!.execute!({}, options);
    expect(runs).toBe(2);
  });
});
