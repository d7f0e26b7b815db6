/** ExecutionContext.waitUntil where the runtime gives one (workerd); elsewhere the promise just runs. */
export function waitUntilOf(c: {
  executionCtx: { waitUntil(p: Promise<unknown>): void };
}): (p: Promise<unknown>) => void {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return () => {};
  }
}
