import { createPrivateKey, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateServiceProviderKeys } from "./self-signed.js";

describe("generateServiceProviderKeys", () => {
  it("makes a certificate that parses, is signed by its own key, names the service and lasts ten years", async () => {
    const now = new Date("2049-06-01T00:00:00Z"); // notAfter then falls after 2049: GeneralizedTime
    const keys = await generateServiceProviderKeys("Quire SAML SP abc", now);
    const cert = new X509Certificate(keys.certificate);
    expect(cert.subject).toBe("CN=Quire SAML SP abc");
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(new Date(cert.validTo).toISOString()).toBe("2059-06-01T00:00:00.000Z");
    expect(new Date(cert.validFrom).getTime()).toBeLessThan(now.getTime());
    // The private key is the one of the certificate.
    const publicOfPrivate = createPrivateKey(keys.privateKey);
    expect(cert.checkPrivateKey(publicOfPrivate)).toBe(true);
    expect(keys.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("writes the serial number in its shortest form whatever the random bytes (OpenSSL refuses a padded one)", async () => {
    for (const first of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
      const random = Buffer.alloc(16, 0x01);
      random[0] = first;
      const keys = await generateServiceProviderKeys("Quire SAML SP serial", new Date(), random);
      const serial = new X509Certificate(keys.certificate).serialNumber;
      expect(serial, `first byte ${first}`).toMatch(/^[4-7][0-9A-F]/);
      expect(serial).toHaveLength(32);
    }
  });
});
