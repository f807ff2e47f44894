/**
 * What each worker thread runs: a task of the task module the caller named (pool.ts `runTask`).
 * The module is imported once per thread, on its first task.
 */
export default async function runEntry(task: { module: string; name: string; input: unknown }): Promise<unknown> {
  const { default: run } = (await import(task.module)) as { default: (task: { name: string; input: unknown }) => unknown };
  return run({ name: task.name, input: task.input });
}
