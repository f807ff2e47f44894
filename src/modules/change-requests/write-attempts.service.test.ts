/**
 * The change request writes' all-or-nothing and retry behaviour: a change request created from a
 * template exists with its content or not at all; a moved primary revision is a typed error
 * (PrimaryMoved) that only the compare-and-set loops retry.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { commitRevision, PrimaryMoved } from "../../content/revision/commit.js";
import { emptyContent } from "../../content/revision/model.js";
import { conflicting, DomainError } from "../../lib/errors.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { readTemplateForChangeRequest } from "./change-requests.service.js";
import { retryWhileSuperseded, Superseded } from "./write-attempts.service.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  await commitContent(ctx, space.id, { pages: [{ title: "Home", paragraphs: ["Hello"] }] });
  return { ...roles, space };
}

async function revisionCount(spaceId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom("revisions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("spaceId", "=", spaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Makes every insert into change_request_contributors (the last write of a creation from a template) fail while `run` runs. */
async function withContributionsRefused<T>(run: () => Promise<T>): Promise<T> {
  if (ctx.dialect === "postgres") {
    await sql`CREATE FUNCTION refuse_contribution() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'contributions refused (test)'; END $$`.execute(
      ctx.db,
    );
    await sql`CREATE TRIGGER refuse_contribution BEFORE INSERT ON change_request_contributors FOR EACH ROW EXECUTE FUNCTION refuse_contribution()`.execute(
      ctx.db,
    );
  } else {
    await sql`CREATE TRIGGER refuse_contribution BEFORE INSERT ON change_request_contributors BEGIN SELECT RAISE(ABORT, 'contributions refused (test)'); END`.execute(
      ctx.db,
    );
  }
  try {
    return await run();
  } finally {
    if (ctx.dialect === "postgres") {
      await sql`DROP TRIGGER refuse_contribution ON change_request_contributors`.execute(ctx.db);
      await sql`DROP FUNCTION refuse_contribution()`.execute(ctx.db);
    } else {
      await sql`DROP TRIGGER refuse_contribution`.execute(ctx.db);
    }
  }
}

describe("creating a change request from a template", () => {
  it("leaves no change request and no revision behind when the template's content cannot be applied", async () => {
    const { owner, space } = await setup();
    const revisions = await revisionCount(space.id);
    const failed = await withContributionsRefused(() =>
      ctx.as(owner).post(`/v1/spaces/${space.id}/change-requests`, { subject: "Start", template: { id: "getting-started" } }),
    );
    expect(failed.status).toBe(500);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests?status=draft`)).body.count).toBe(0);
    expect(await ctx.db.selectFrom("changeRequests").select("id").where("spaceId", "=", space.id).execute()).toEqual([]);
    expect(await revisionCount(space.id)).toBe(revisions);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body).toMatchObject({ changeRequests: 0, changeRequestsDraft: 0 });

    // Once content can be applied again, the same request creates #1 with the template's pages.
    const created = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/change-requests`, { subject: "Start", template: { id: "getting-started" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ number: 1, subject: "Start", status: "draft" });
    expect(created.body.revision).not.toBe(created.body.revisionInitial);
    const pages = (await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${created.body.id}/content`)).body.pages;
    expect(pages.map((p: { title: string }) => p.title)).toEqual(["Home", "Welcome", "Getting started"]);
    const contributors = (await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${created.body.id}/contributors`)).body;
    expect(contributors.items).toMatchObject([{ actionType: "edit", count: 1, user: { id: owner.id } }]);
    expect(await revisionCount(space.id)).toBe(revisions + 1);
  });

  it("refuses an unknown template or wrong parameters with a 400 before writing anything (service)", async () => {
    const { space } = await setup();
    const unknown = readTemplateForChangeRequest({ id: "no-such-template", contentRefs: {} });
    await expect(unknown).rejects.toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/^body\.template: No template "no-such-template"/),
    });
    const wrongParam = readTemplateForChangeRequest({ id: "getting-started", contentRefs: { nope: { kind: "url", url: "x" } as never } });
    await expect(wrongParam).rejects.toMatchObject({ kind: "invalid", message: expect.stringMatching(/^body\.template: /) });
    expect(await ctx.db.selectFrom("changeRequests").select("id").where("spaceId", "=", space.id).execute()).toEqual([]);
  });
});

describe("a moved primary revision", () => {
  it("is a PrimaryMoved error from commitRevision, not a domain error, and writes nothing", async () => {
    const { space } = await setup();
    const before = (await getSpace(ctx.db, space.id))!;
    const { revisionId: current } = await commitContent(ctx, space.id, { pages: [{ title: "Moved on", paragraphs: ["Later"] }] });
    const revisions = await revisionCount(space.id);
    const attempt = ctx.db.transaction().execute((trx) =>
      commitRevision(trx, {
        spaceId: space.id,
        parents: [before.revisionId],
        type: "edits",
        content: emptyContent(),
        createdBy: null,
        movePrimaryFrom: before.revisionId,
      }),
    );
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PrimaryMoved);
    expect(error).not.toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      spaceId: space.id,
      expected: before.revisionId,
      message: "The space's content changed while this change was being applied; try again.",
    });
    expect((await getSpace(ctx.db, space.id))!.revisionId).toBe(current);
    expect(await revisionCount(space.id)).toBe(revisions);
  });
});

describe("retryWhileSuperseded", () => {
  it("recomputes while superseded (Superseded or PrimaryMoved), then answers 409", async () => {
    let calls = 0;
    const outcome = await retryWhileSuperseded(
      5,
      async () => {
        calls++;
        if (calls === 1) throw new Superseded();
        if (calls === 2) throw new PrimaryMoved("s", "r");
        return "done";
      },
      "kept changing",
    );
    expect(outcome).toBe("done");
    expect(calls).toBe(3);

    calls = 0;
    const exhausted = retryWhileSuperseded(
      3,
      async () => {
        calls++;
        throw new Superseded();
      },
      "kept changing",
    );
    await expect(exhausted).rejects.toMatchObject({ kind: "conflict", message: "kept changing" });
    expect(calls).toBe(3);
  });

  it("does not retry other errors, 409s included", async () => {
    let calls = 0;
    const refused = retryWhileSuperseded(
      5,
      async () => {
        calls++;
        throw conflicting("Change request #1 is merged.");
      },
      "kept changing",
    );
    await expect(refused).rejects.toMatchObject({ kind: "conflict", message: "Change request #1 is merged." });
    expect(calls).toBe(1);
  });
});
