/** Types of check-sql-in-queries.mjs for the tests that import it. */
export function sqlOutsideQueries(root?: string): string[];
