import { describe, expect, it } from "vitest";
import { seal, unseal } from "./sealed.js";

describe("sealed secrets", () => {
  it("round-trips and never contains the plaintext", () => {
    const sealed = seal("instance-secret", "git", "user:token-123");
    expect(JSON.stringify(sealed)).not.toContain("token-123");
    expect(unseal("instance-secret", "git", sealed)).toBe("user:token-123");
  });

  it("refuses another key, another purpose, or tampered data", () => {
    const sealed = seal("instance-secret", "git", "user:token");
    expect(() => unseal("other-secret", "git", sealed)).toThrow();
    expect(() => unseal("instance-secret", "other", sealed)).toThrow();
    const data = Buffer.from(sealed.data, "base64");
    data[0] = (data[0] ?? 0) ^ 1;
    expect(() => unseal("instance-secret", "git", { ...sealed, data: data.toString("base64") })).toThrow();
  });
});
