/** scripts/check-sql-in-queries.mjs: SQL in the families and applications is only in .queries.ts files. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlOutsideQueries } from "../../scripts/check-sql-in-queries.mjs";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function repository(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-sql-"));
  made.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("SQL outside queries files", () => {
  it("finds Kysely queries and sql templates in routes, services and app handlers, not in queries files, tests or comments", () => {
    const root = repository({
      "src/modules/teams/teams.queries.ts": 'export const q = (db) => db.selectFrom("teams").selectAll().execute();\n',
      "src/modules/teams/teams.routes.ts":
        '// db.selectFrom("x") in a comment\nconst s = "db.deleteFrom(x)";\nawait db\n  .updateTable("members")\n  .set({}).execute();\n',
      "src/modules/teams/teams.service.ts": "const n = sql<number>`select 1`;\n",
      "src/apps/web/pages/x/y.page.ts": 'await trx.insertInto("sessions").values({}).execute();\n',
      "src/modules/teams/teams.routes.test.ts": 'await db.selectFrom("teams").execute();\n',
    });
    expect(sqlOutsideQueries(root).sort()).toEqual([
      "src/apps/web/pages/x/y.page.ts:1: .insertInto(...)",
      "src/modules/teams/teams.routes.ts:3: .updateTable(...)",
      "src/modules/teams/teams.service.ts:1: sql`...`",
    ]);
  });

  it("finds none in this repository", () => {
    expect(sqlOutsideQueries()).toEqual([]);
  });
});
