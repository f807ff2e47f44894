/**
 * A test identity provider: a key pair and a self-signed certificate made by openssl, and SAML
 * responses built and signed with xml-crypto exactly as an IdP would (or deliberately not), so
 * that tests can post hostile answers to the ACS.
 */
import { execFileSync } from "node:child_process";
import { randomUUID, sign, X509Certificate } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";
import { encrypt } from "xml-encryption";

export interface TestIdp {
  entityId: string;
  ssoUrl: string;
  privateKey: string;
  certificate: string;
}

/**
 * Writes an RSA 2048 key and a self-signed certificate for `commonName`, valid for two days, into
 * `dir` (openssl, as an administrator would make them for an identity provider).
 */
export function writeSelfSignedCertificate(dir: string, commonName: string, keyFile: string, certFile: string): void {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-sha256",
      "-days",
      "2",
      "-subj",
      `/CN=${commonName}`,
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ],
    { cwd: dir, stdio: "ignore" },
  );
}

/** A new IdP identity: RSA 2048 key and a certificate valid for two days. */
export function createTestIdp(name = "idp"): TestIdp {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-idp-"));
  try {
    writeSelfSignedCertificate(dir, `${name}.test`, "key.pem", "cert.pem");
    return {
      entityId: `https://${name}.test/metadata`,
      ssoUrl: `https://${name}.test/sso`,
      privateKey: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
      certificate: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface ResponseOptions {
  idp: TestIdp;
  /** The provider's ACS URL (Destination and Recipient unless overridden). */
  acsUrl: string;
  /** The SP entity ID (Audience). */
  audience: string;
  inResponseTo: string;
  email: string;
  firstName?: string;
  lastName?: string;
  issuer?: string;
  destination?: string;
  recipient?: string;
  assertionId?: string;
  /** Shift of every time in the assertion, in ms (negative: in the past). */
  shiftMs?: number;
  /** Lifetime of the assertion from its issue instant (default 5 minutes). */
  lifetimeMs?: number;
  nameIdFormat?: string;
  /** What to sign: the assertion (default), the whole response, both, or nothing. */
  sign?: "assertion" | "response" | "both" | "none";
  /** Sign with this key instead of the IdP's. */
  signingKey?: string;
  /** The AuthnStatement's SessionIndex (a random one when omitted). */
  sessionIndex?: string;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export function assertionXml(o: ResponseOptions): string {
  const now = Date.now() + (o.shiftMs ?? 0);
  const lifetime = o.lifetimeMs ?? 5 * 60 * 1000;
  const issuer = o.issuer ?? o.idp.entityId;
  const attributes = [
    o.firstName !== undefined ? ["first_name", o.firstName] : undefined,
    o.lastName !== undefined ? ["last_name", o.lastName] : undefined,
  ].filter((a): a is string[] => !!a);
  return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${o.assertionId ?? `_a${randomUUID()}`}" Version="2.0" IssueInstant="${iso(now)}"><saml:Issuer>${issuer}</saml:Issuer><saml:Subject><saml:NameID Format="${o.nameIdFormat ?? "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"}">${o.email}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(now + lifetime)}" Recipient="${o.recipient ?? o.acsUrl}" InResponseTo="${o.inResponseTo}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(now - 30_000)}" NotOnOrAfter="${iso(now + lifetime)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${o.sessionIndex ?? `_s${randomUUID()}`}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>${
    attributes.length > 0
      ? `<saml:AttributeStatement>${attributes
          .map(
            ([name, value]) =>
              `<saml:Attribute Name="${name}"><saml:AttributeValue xsi:type="xs:string">${value}</saml:AttributeValue></saml:Attribute>`,
          )
          .join("")}</saml:AttributeStatement>`
      : ""
  }</saml:Assertion>`;
}

export function wrapInResponse(o: ResponseOptions, assertion: string): string {
  const now = Date.now() + (o.shiftMs ?? 0);
  return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${o.destination ?? o.acsUrl}" InResponseTo="${o.inResponseTo}"><saml:Issuer>${o.issuer ?? o.idp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${assertion}</samlp:Response>`;
}

/** Signs the element that `localName` names (Assertion or Response) with an enveloped signature after its Issuer. */
export function signElement(xml: string, localName: "Assertion" | "Response", privateKey: string, certificate: string): string {
  const sig = new SignedXml({
    privateKey,
    publicCert: certificate,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: `//*[local-name(.)='${localName}']`,
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
  });
  sig.computeSignature(xml, {
    location: { reference: `//*[local-name(.)='${localName}']/*[local-name(.)='Issuer']`, action: "after" },
  });
  return sig.getSignedXml();
}

/** A whole SAMLResponse, base64 as the browser posts it. */
export function buildResponse(o: ResponseOptions): string {
  const key = o.signingKey ?? o.idp.privateKey;
  const sign = o.sign ?? "assertion";
  let assertion = assertionXml(o);
  if (sign === "assertion" || sign === "both") assertion = signElement(assertion, "Assertion", key, o.idp.certificate);
  let response = wrapInResponse(o, assertion);
  if (sign === "response" || sign === "both") response = signElement(response, "Response", key, o.idp.certificate);
  return Buffer.from(response).toString("base64");
}

/**
 * A SAMLResponse whose (signed) assertion is encrypted to `certificate`, as an IdP with assertion
 * encryption turned on sends it: AES-256-GCM content key, RSA-OAEP key transport.
 */
export async function buildEncryptedResponse(o: ResponseOptions, certificate: string): Promise<string> {
  const sign = o.sign ?? "assertion";
  const key = o.signingKey ?? o.idp.privateKey;
  let assertion = assertionXml(o);
  if (sign === "assertion" || sign === "both") assertion = signElement(assertion, "Assertion", key, o.idp.certificate);
  const encryptedData = await new Promise<string>((resolve, reject) =>
    encrypt(
      assertion,
      {
        rsa_pub: new X509Certificate(certificate).publicKey.export({ type: "spki", format: "pem" }).toString(),
        pem: certificate,
        encryptionAlgorithm: "http://www.w3.org/2009/xmlenc11#aes256-gcm",
        keyEncryptionAlgorithm: "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
  let response = wrapInResponse(o, `<saml:EncryptedAssertion>${encryptedData}</saml:EncryptedAssertion>`);
  if (sign === "response" || sign === "both") response = signElement(response, "Response", key, o.idp.certificate);
  return Buffer.from(response).toString("base64");
}

/** The AuthnRequest carried by an IdP redirect URL (HTTP-Redirect binding): its ID and XML. */
export function authnRequestOf(location: string): { id: string; xml: string; relayState: string | null } {
  const url = new URL(location);
  const encoded = url.searchParams.get("SAMLRequest");
  if (!encoded) throw new Error(`no SAMLRequest in ${location}`);
  const xml = inflateRawSync(Buffer.from(encoded, "base64")).toString("utf8");
  const id = /\bID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error("no ID in the AuthnRequest");
  return { id, xml, relayState: url.searchParams.get("RelayState") };
}

// --- single logout (HTTP-Redirect binding) ---

export interface LogoutMessageOptions {
  idp: TestIdp;
  /** The SP's single logout URL (Destination unless overridden). */
  destination: string;
  issuer?: string;
  id?: string;
  /** Shift of the IssueInstant, in ms (negative: in the past). */
  shiftMs?: number;
}

export function logoutRequestXml(o: LogoutMessageOptions & { nameId: string; sessionIndexes?: string[] }): string {
  const now = Date.now() + (o.shiftMs ?? 0);
  return `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.id ?? `_l${randomUUID()}`}" Version="2.0" IssueInstant="${iso(now)}" Destination="${o.destination}" NotOnOrAfter="${iso(now + 5 * 60_000)}"><saml:Issuer>${o.issuer ?? o.idp.entityId}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${o.nameId}</saml:NameID>${(o.sessionIndexes ?? []).map((i) => `<samlp:SessionIndex>${i}</samlp:SessionIndex>`).join("")}</samlp:LogoutRequest>`;
}

export function logoutResponseXml(o: LogoutMessageOptions & { inResponseTo: string; status?: string }): string {
  const now = Date.now() + (o.shiftMs ?? 0);
  return `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.id ?? `_r${randomUUID()}`}" Version="2.0" IssueInstant="${iso(now)}" Destination="${o.destination}" InResponseTo="${o.inResponseTo}"><saml:Issuer>${o.issuer ?? o.idp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${o.status ?? "urn:oasis:names:tc:SAML:2.0:status:Success"}"/></samlp:Status></samlp:LogoutResponse>`;
}

/**
 * The query string of an HTTP-Redirect message as an IdP sends it: deflated, base64, signed over
 * `SAMLRequest|SAMLResponse`, `RelayState`, `SigAlg` with `signingKey` (the IdP's key by default;
 * null: unsigned).
 */
export function redirectQuery(o: {
  idp: TestIdp;
  parameter: "SAMLRequest" | "SAMLResponse";
  xml: string;
  relayState?: string;
  signingKey?: string | null;
  sigAlg?: string;
  hash?: string;
}): string {
  const enc = encodeURIComponent;
  let query = `${o.parameter}=${enc(deflateRawSync(Buffer.from(o.xml)).toString("base64"))}`;
  if (o.relayState) query += `&RelayState=${enc(o.relayState)}`;
  if (o.signingKey === null) return query;
  query += `&SigAlg=${enc(o.sigAlg ?? "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")}`;
  const signature = sign(o.hash ?? "sha256", Buffer.from(query), o.signingKey ?? o.idp.privateKey).toString("base64");
  return `${query}&Signature=${enc(signature)}`;
}

/** The message of an SP's HTTP-Redirect URL: its XML, and its parameters as sent (to check the signature). */
export function redirectMessageOf(location: string): {
  xml: string;
  signed: string;
  signature: string;
  sigAlg: string;
  relayState: string | null;
} {
  const url = new URL(location);
  const raw = new Map(
    url.search
      .slice(1)
      .split("&")
      .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)] as const),
  );
  const name = raw.has("SAMLRequest") ? "SAMLRequest" : "SAMLResponse";
  const xml = inflateRawSync(Buffer.from(url.searchParams.get(name) ?? "", "base64")).toString("utf8");
  const signed = `${name}=${raw.get(name)}${raw.has("RelayState") ? `&RelayState=${raw.get("RelayState")}` : ""}&SigAlg=${raw.get("SigAlg")}`;
  return {
    xml,
    signed,
    signature: url.searchParams.get("Signature") ?? "",
    sigAlg: url.searchParams.get("SigAlg") ?? "",
    relayState: url.searchParams.get("RelayState"),
  };
}
