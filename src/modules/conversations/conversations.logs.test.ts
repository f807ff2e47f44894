import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization, createUser } from "../../../test/helpers/factories.js";

const lines: string[] = [];
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ log: pino({ level: "trace" }, { write: (line: string) => lines.push(line) }) });
});
afterAll(() => ctx.close());

describe("conversation ingestion and analysis logs", () => {
  it("never log the personal data or secrets of a conversation, accepted or refused", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const body = "My email is jane.doe@example.com, my phone +1 415 555 0132, card 4111 1111 1111 1111, password: hunter22!";
    const url = `/v1/orgs/${org.id}/conversations`;
    const accepted = await ctx.as(owner).post(url, {
      id: "pii",
      subject: "Reset for jane.doe@example.com",
      parts: [{ type: "message", role: "user", body }],
      metadata: { url: "https://help.example.com/u/jane.doe@example.com", attributes: { email: "jane.doe@example.com" } },
    });
    expect(accepted.status).toBe(204);
    const refused = await ctx.as(owner).post(url, { id: "pii-2", parts: [{ type: "message", role: "robot", body }] });
    expect(refused.status).toBe(400);
    expect(await ctx.worker.drain()).toBe(1);
    const log = lines.join("\n");
    expect(log).toContain("conversations analysed");
    for (const original of ["jane.doe", "555 0132", "4111 1111", "hunter22"]) expect(log).not.toContain(original);
  });
});
