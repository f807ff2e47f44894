/**
 * The identity provider's signing certificate as an administrator pastes it: a whole PEM block or
 * only its base64 body (as IdP metadata shows it). Checked with node:crypto's X509Certificate, so
 * only a certificate that parses, holds a public key and is within its validity period is kept,
 * stored as one normalized PEM block.
 */
import { X509Certificate } from "node:crypto";
import { invalid } from "../../lib/errors.js";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

export interface ParsedCertificate {
  pem: string;
  subject: string;
  validTo: string;
}

/** Normalizes and checks a certificate; throws `invalid` naming `field` when it is not one. */
export function parseCertificate(text: string, field = "body.certificate", now = new Date()): ParsedCertificate {
  const blocks = [...text.matchAll(PEM_BLOCK)].map((m) => m[1] ?? "");
  if (blocks.length > 1) throw invalid(`${field} must hold one certificate, not ${blocks.length}.`);
  if (blocks.length === 0 && /-----BEGIN/.test(text)) {
    throw invalid(`${field} must be an X.509 certificate ("-----BEGIN CERTIFICATE-----"), not another kind of PEM block.`);
  }
  const body = (blocks[0] ?? text).replace(/\s+/g, "");
  if (body === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw invalid(`${field} must be an X.509 certificate in PEM form (or its base64 body).`);
  }
  const pem = `-----BEGIN CERTIFICATE-----\n${(body.match(/.{1,64}/g) ?? []).join("\n")}\n-----END CERTIFICATE-----\n`;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw invalid(`${field} is not a valid X.509 certificate: its content could not be parsed.`);
  }
  const validFrom = new Date(cert.validFrom);
  const validTo = new Date(cert.validTo);
  if (validTo.getTime() < now.getTime()) {
    throw invalid(`${field} expired on ${validTo.toISOString()}; paste the identity provider's current signing certificate.`);
  }
  if (validFrom.getTime() > now.getTime()) {
    throw invalid(`${field} is not valid before ${validFrom.toISOString()}.`);
  }
  return { pem, subject: cert.subject, validTo: validTo.toISOString() };
}
