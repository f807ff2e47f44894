import { describe, expect, it } from "vitest";
import { luhnValid, redact, redactUrl } from "./redact.model.js";

describe("redact", () => {
  it("replaces emails, phone numbers, card numbers and secrets, and nothing else", () => {
    const cases: [string, string][] = [
      ["Write to jane.doe+work@example.co.uk today", "Write to [REDACTED:email] today"],
      ["call (415) 555-0132 or +44 20 7946 0958", "call [REDACTED:phone] or [REDACTED:phone]"],
      ["card 4111 1111 1111 1111 and 5500-0000-0000-0004", "card [REDACTED:card] and [REDACTED:card]"],
      ["order 1234567890123 of 2024-01-15, build 20240115", "order 1234567890123 of 2024-01-15, build 20240115"],
      ["token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here", "token [REDACTED:secret] here"],
      ["password: hunter22! and api_key=abcd1234", "password: [REDACTED:secret] and api_key=[REDACTED:secret]"],
      ["Authorization: Bearer abc.def-ghi_jkl123456", "Authorization: Bearer [REDACTED:secret]"],
      ["keys sk_live_51HqLyjWDarjtT1zdp7dc AKIAIOSFODNN7EXAMPLE", "keys [REDACTED:secret] [REDACTED:secret]"],
      ["jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt [REDACTED:secret]"],
      ["random aZ3kT9qLm2Xv8Rw4Yp7Nc1Bd6Fh0Gj5 word", "random [REDACTED:secret] word"],
      [
        "see https://docs.example.com/getting-started/installation-guide and a-very-long-hyphenated-word-here",
        "see https://docs.example.com/getting-started/installation-guide and a-very-long-hyphenated-word-here",
      ],
      ["-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- done", "[REDACTED:secret] done"],
      ["Version 2.14.3 on port 8080 with 3 users", "Version 2.14.3 on port 8080 with 3 users"],
    ];
    for (const [input, expected] of cases) expect(redact(input)).toBe(expected);
  });

  it("keeps a redacted URL a valid URL", () => {
    expect(redactUrl("https://help.example.com/users/jane@example.com/tickets?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe(
      "https://help.example.com/users/%5BREDACTED%3Aemail%5D/tickets?token=%5BREDACTED%3Asecret%5D",
    );
  });

  it("checks card numbers with Luhn", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(redact("4111 1111 1111 1112")).toBe("4111 1111 1111 1112");
  });
});
