import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { conflicting, invalid, missing, notAllowed, preconditionFailed, tooLarge } from "../lib/errors.js";
import { registerErrorHandling } from "./error-handler.js";

describe("domain errors", () => {
  it("become the status of their kind with the message as the body", async () => {
    const app = Fastify();
    registerErrorHandling(app);
    const cases = [
      [invalid("body.path is taken."), 400],
      [notAllowed("Only admins may do this."), 403],
      [missing('No site with id "x".'), 404],
      [conflicting("Already merged."), 409],
      [preconditionFailed("The revision moved."), 412],
      [tooLarge("Over the limit."), 413],
    ] as const;
    cases.forEach(([error], i) => {
      app.get(`/${i}`, async () => {
        throw error;
      });
    });
    for (const [i, [error, status]] of cases.entries()) {
      const res = await app.inject({ method: "GET", url: `/${i}` });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error: { code: status, message: error.message } });
    }
    await app.close();
  });
});
