/**
 * How far this process's resident memory rises while `fn` runs: sampled every 5 ms and once at the
 * end, after a GC when the process was started with --expose-gc. For tests that bound what a path
 * holds (the image, Flate and fax paths never hold a whole image).
 * @example
 * const { result, growth } = await rssGrowthDuring(() => localExecutor.render(task));
 * expect(growth).toBeLessThan(200 * 1024 * 1024);
 */
export async function rssGrowthDuring<T>(fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}
