import { describe, expect, it } from "vitest";
import { openTicket, sealTicket, TICKET_TTL_MS } from "./saml-ticket.model.js";

const ticket = { userId: "u", providerId: "p", orgId: "o", requestId: "_r", next: "/app" };

describe("SAML sign-in tickets", () => {
  it("opens a ticket sealed with the same key before it expires", () => {
    const now = Date.now();
    expect(openTicket("k1", sealTicket("k1", ticket, now), now + 1000)).toEqual({ ...ticket, expiresAt: now + TICKET_TTL_MS });
  });

  it("refuses an expired ticket, another key's, and any change to it", () => {
    const now = Date.now();
    const sealed = sealTicket("k1", ticket, now);
    expect(openTicket("k1", sealed, now + TICKET_TTL_MS)).toBeUndefined();
    expect(openTicket("k2", sealed, now)).toBeUndefined();
    const [payload, mac] = sealed.split(".");
    const forged = Buffer.from(JSON.stringify({ ...ticket, userId: "admin", expiresAt: now + TICKET_TTL_MS })).toString("base64url");
    expect(openTicket("k1", `${forged}.${mac}`, now)).toBeUndefined();
    expect(openTicket("k1", `${payload}`, now)).toBeUndefined();
    expect(openTicket("k1", `${payload}.${mac}.x`, now)).toBeUndefined();
  });
});
