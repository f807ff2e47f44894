/**
 * CPU time, for the tests that bound how much work something takes. Unlike wall time, other
 * processes on the machine (other test files, other jobs of a CI runner) do not stretch it, so a
 * loaded machine cannot fail such a test; it counts every thread of this process (the garbage
 * collector's included), so bounds leave room for a collection.
 */
export function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs `run` and returns its result with the CPU milliseconds it took. */
export function withCpuTime<T>(run: () => T): { result: T; ms: number } {
  const start = cpuNow();
  const result = run();
  return { result, ms: cpuNow() - start };
}

/** Awaits `run` and returns its result with the CPU milliseconds this process spent meanwhile. */
export async function withCpuTimeAsync<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = cpuNow();
  const result = await run();
  return { result, ms: cpuNow() - start };
}
