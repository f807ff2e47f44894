/**
 * This service provider's own key pair per identity provider: an RSA 2048 key and a self-signed
 * X.509 certificate that the identity provider uses to encrypt assertions to us (published in the
 * SP metadata as KeyDescriptor use="encryption"). Self-signed is what SAML metadata expects: the
 * certificate only carries the public key, trust comes from the metadata exchange, not from a CA.
 *
 * node:crypto makes keys but not certificates, so the certificate's DER is written here (ASN.1 of
 * RFC 5280, v1: no extensions are needed to carry a key) and signed with the key itself.
 */
import { generateKeyPair, randomBytes, sign, X509Certificate } from "node:crypto";
import { promisify } from "node:util";

// RSA key generation takes tens of milliseconds: on the thread pool, not the request thread.
const generateRsa = promisify(generateKeyPair);

/** Long enough not to expire under an identity provider that holds a copy of the metadata. */
const VALIDITY_YEARS = 10;

export interface ServiceProviderKeys {
  /** PKCS#8 PEM; never leaves the server. */
  privateKey: string;
  /** PEM of the self-signed certificate. */
  certificate: string;
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...content: Buffer[]) => der(0x30, ...content);

function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const bytes: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = part >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 4.1.2.5 requires. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

function name(commonName: string): Buffer {
  return sequence(der(0x31, sequence(oid("2.5.4.3"), der(0x0c, Buffer.from(commonName, "utf8")))));
}

/** A new key pair and its self-signed certificate, `commonName` naming this service provider. */
export async function generateServiceProviderKeys(
  commonName: string,
  now = new Date(),
  random: Buffer = randomBytes(16),
): Promise<ServiceProviderKeys> {
  const { privateKey, publicKey } = await generateRsa("rsa", { modulusLength: 2048 });
  // A positive INTEGER in its shortest form: a first byte of 0x00 before one below 0x80 is padding
  // DER forbids, and OpenSSL refuses such a certificate ("illegal padding"), 1 time in 256 before.
  const serial = Buffer.from(random.subarray(0, 16));
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  const sha256WithRsa = sequence(oid("1.2.840.113549.1.1.11"), Buffer.from([0x05, 0x00]));
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + VALIDITY_YEARS);
  // The common name is at most 64 characters (RFC 5280 ub-common-name).
  const subject = name(commonName.slice(0, 64));
  const tbs = sequence(
    der(0x02, serial),
    sha256WithRsa,
    subject,
    sequence(time(notBefore), time(notAfter)),
    subject,
    publicKey.export({ type: "spki", format: "der" }),
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, sha256WithRsa, der(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${(certificate.toString("base64").match(/.{1,64}/g) ?? []).join("\n")}\n-----END CERTIFICATE-----\n`;
  // Parsing it back proves the DER is well formed before it is stored and published.
  if (!new X509Certificate(pem).verify(publicKey)) throw new Error("The generated SAML certificate does not verify.");
  return { privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), certificate: pem };
}
