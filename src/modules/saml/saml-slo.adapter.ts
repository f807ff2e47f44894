/**
 * SAML single logout over the HTTP-Redirect binding, both ways, for one provider:
 *
 * - SP-initiated: at sign-out this service sends a LogoutRequest naming the NameID and
 *   SessionIndex of the assertion that opened the session (remembered as a request of kind
 *   `logout`), and later accepts the IdP's LogoutResponse that answers it, once.
 * - IdP-initiated: the IdP's LogoutRequest names a NameID (and maybe session indexes); the caller
 *   ends those sessions and this module writes the signed LogoutResponse.
 *
 * A redirect message is signed over its query string (SAMLRequest|SAMLResponse, RelayState,
 * SigAlg, as encoded by the sender), not inside the XML. node-saml's redirect validation accepts
 * a message with no Signature at all and picks the signed parameters by regular expression, so the
 * signature is checked here, over the raw parameters exactly as received, before the XML is read.
 * Then: the issuer is this provider's IdP, the Destination is this provider's SLO endpoint (so a
 * message meant for another organization's provider is refused even when both trust the same
 * IdP), it was issued in the last few minutes, and its ID (request) or InResponseTo (response) is
 * used once.
 */
import { createVerify, sign, X509Certificate } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Profile } from "@node-saml/node-saml";
import { DOMParser } from "@xmldom/xmldom";
import type { Executor } from "../../db/database.js";
import type { SamlProviderRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { invalid } from "../../lib/errors.js";
import { randomBase62 } from "../../lib/ids.js";
import { serviceProviderUrls } from "./saml.presenter.js";
import { recordAssertionUse, takeSamlRequest } from "./saml.queries.js";
import { ASSERTION_NS, CLOCK_SKEW_MS, DatabaseRequestCache, PROTOCOL_NS, samlFor, UNSPECIFIED_FORMAT } from "./saml-sp.adapter.js";
import type { LogoutSubject } from "./saml-ticket.model.js";

/** How old a logout message may be when it arrives (it travels through one browser redirect). */
export const LOGOUT_MESSAGE_MAX_AGE_MS = 5 * 60 * 1000;
/** Largest inflated message read; a LogoutRequest is well under 10 kB. */
const MAX_XML_BYTES = 256 * 1024;

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  [RSA_SHA256]: "RSA-SHA256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": "RSA-SHA384",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": "RSA-SHA512",
};
const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success";

/** Query parameter encoding used for what this service signs: the signature covers these exact bytes. */
const encode = (value: string) => encodeURIComponent(value);

/** A signed HTTP-Redirect URL carrying `xml` to `target` (the IdP's single logout URL). */
function signedRedirect(
  target: string,
  parameter: "SAMLRequest" | "SAMLResponse",
  xml: string,
  relayState: string | undefined,
  privateKey: string,
): string {
  let query = `${parameter}=${encode(deflateRawSync(Buffer.from(xml, "utf8")).toString("base64"))}`;
  if (relayState) query += `&RelayState=${encode(relayState)}`;
  query += `&SigAlg=${encode(RSA_SHA256)}`;
  const signature = sign("sha256", Buffer.from(query, "utf8"), privateKey).toString("base64");
  return `${target}${target.includes("?") ? "&" : "?"}${query}&Signature=${encode(signature)}`;
}

/**
 * The address to send a signing-out member's browser to: a signed LogoutRequest for the subject
 * of their assertion, remembered so that the IdP's LogoutResponse can answer it (once).
 */
export async function logoutRequestUrl(db: Executor, urls: Urls, provider: SamlProviderRow, subject: LogoutSubject): Promise<string> {
  if (!provider.sloUrl) throw invalid("This SAML provider has no single logout URL.");
  const saml = samlFor(db, urls, provider, new DatabaseRequestCache(db, provider.id, "logout"));
  saml.options.generateUniqueId = () => `_${randomBase62(40)}`;
  const profile = {
    issuer: provider.entityId,
    nameID: subject.nameId,
    nameIDFormat: subject.nameIdFormat ?? UNSPECIFIED_FORMAT,
    ...(subject.nameQualifier ? { nameQualifier: subject.nameQualifier } : {}),
    ...(subject.spNameQualifier ? { spNameQualifier: subject.spNameQualifier } : {}),
    ...(subject.sessionIndex ? { sessionIndex: subject.sessionIndex } : {}),
  } as Profile;
  const xml = await saml._generateLogoutRequest(profile);
  return signedRedirect(provider.sloUrl, "SAMLRequest", xml, undefined, provider.spPrivateKey);
}

/** The signed LogoutResponse (Success) to an IdP's LogoutRequest, as a redirect to its single logout URL. */
export function logoutResponseUrl(db: Executor, urls: Urls, provider: SamlProviderRow, inResponseTo: string, relayState?: string): string {
  if (!provider.sloUrl) throw invalid("This SAML provider has no single logout URL.");
  const saml = samlFor(db, urls, provider);
  saml.options.generateUniqueId = () => `_${randomBase62(40)}`;
  const xml = saml._generateLogoutResponse({ ID: inResponseTo } as Profile, true);
  return signedRedirect(provider.sloUrl, "SAMLResponse", xml, relayState, provider.spPrivateKey);
}

/** An IdP's LogoutRequest, verified: whose sessions to end, and what to answer. */
export interface IdpLogoutRequest {
  type: "request";
  id: string;
  nameId: string;
  /** Empty: every session of the NameID. */
  sessionIndexes: string[];
  relayState: string | undefined;
}

/** The IdP's answer to a LogoutRequest this service sent, verified. */
export interface IdpLogoutResponse {
  type: "response";
  success: boolean;
  /** The top-level StatusCode (and the second-level one, if any). */
  status: string;
}

/**
 * The SAML parameters of a raw query string, each with its value as sent (for the signature) and
 * decoded. A parameter given twice is refused: which one was signed would be ambiguous.
 */
function redirectParameters(rawQuery: string): Map<string, { raw: string; value: string }> {
  const parameters = new Map<string, { raw: string; value: string }>();
  for (const pair of rawQuery.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!["SAMLRequest", "SAMLResponse", "RelayState", "SigAlg", "Signature"].includes(name)) continue;
    if (parameters.has(name)) throw invalid(`The logout message gives ${name} twice.`);
    const raw = eq < 0 ? "" : pair.slice(eq + 1);
    let value: string;
    try {
      value = decodeURIComponent(raw.replace(/\+/g, " "));
    } catch {
      throw invalid(`The logout message's ${name} is not correctly URL-encoded.`);
    }
    parameters.set(name, { raw, value });
  }
  return parameters;
}

/** Checks the HTTP-Redirect signature over the parameters as received, with the provider's certificate. */
function checkRedirectSignature(provider: SamlProviderRow, parameters: Map<string, { raw: string; value: string }>, kind: string): void {
  const signature = parameters.get("Signature");
  const sigAlg = parameters.get("SigAlg");
  if (!signature || !sigAlg) {
    throw invalid(
      "The logout message is not signed (no Signature or SigAlg). The identity provider must sign its logout messages " +
        "(in SimpleSAMLphp: sign.logout / redirect.sign) with the certificate registered on this provider.",
    );
  }
  const algorithm = SIGNATURE_ALGORITHMS[sigAlg.value];
  if (!algorithm) {
    throw invalid(`The logout message is signed with ${sigAlg.value}, which is not accepted; use RSA with SHA-256, SHA-384 or SHA-512.`);
  }
  const relayState = parameters.get("RelayState");
  const signed = `${kind}=${parameters.get(kind)?.raw ?? ""}${relayState ? `&RelayState=${relayState.raw}` : ""}&SigAlg=${sigAlg.raw}`;
  let valid = false;
  try {
    const verifier = createVerify(algorithm);
    verifier.update(signed, "utf8");
    valid = verifier.verify(new X509Certificate(provider.certificate).publicKey, Buffer.from(signature.value, "base64"));
  } catch {
    valid = false;
  }
  if (!valid) throw invalid("The logout message's signature does not match this provider's certificate; it was refused.");
}

function inflate(encoded: string): string {
  try {
    return inflateRawSync(Buffer.from(encoded, "base64"), { maxOutputLength: MAX_XML_BYTES }).toString("utf8");
  } catch {
    throw invalid("The logout message could not be read: it is not DEFLATE-compressed base64 (HTTP-Redirect binding), or it is too large.");
  }
}

function parseMessage(xml: string): Element {
  if (/<!DOCTYPE/i.test(xml)) throw invalid("The logout message contains a DOCTYPE, which SAML does not allow.");
  let broken = false;
  const doc = new DOMParser({
    errorHandler: {
      warning: () => {},
      error: () => {
        broken = true;
      },
      fatalError: () => {
        broken = true;
      },
    },
  }).parseFromString(xml, "text/xml");
  const root = doc.documentElement;
  if (broken || !root) throw invalid("The logout message is not well-formed XML.");
  return root;
}

const childElements = (parent: Element, ns: string, localName: string) =>
  Array.from(parent.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).localName === localName && (n as Element).namespaceURI === ns,
  );

/** What every logout message must satisfy: issuer, destination, version and issue time. */
function checkEnvelope(root: Element, provider: SamlProviderRow, sloUrl: string, now: number): number {
  if (root.getAttribute("Version") !== "2.0") throw invalid("The logout message is not SAML 2.0.");
  const issuer = childElements(root, ASSERTION_NS, "Issuer")[0]?.textContent?.trim() ?? "";
  if (issuer !== provider.entityId) {
    throw invalid(`The logout message comes from another issuer ("${issuer}"), not this provider's entity ID.`);
  }
  const destination = root.getAttribute("Destination");
  if (destination !== sloUrl) {
    throw invalid(
      `The logout message was sent to another destination ("${destination ?? "none"}"), not this provider's single logout URL.`,
    );
  }
  const issued = Date.parse(root.getAttribute("IssueInstant") ?? "");
  if (!Number.isFinite(issued)) throw invalid("The logout message has no valid IssueInstant.");
  if (issued > now + CLOCK_SKEW_MS) throw invalid("The logout message was issued in the future; check the identity provider's clock.");
  if (issued < now - LOGOUT_MESSAGE_MAX_AGE_MS - CLOCK_SKEW_MS) {
    throw invalid("The logout message is too old (issued more than 5 minutes ago); sign out again.");
  }
  return issued;
}

/**
 * Verifies a logout message posted by redirect to this provider's SLO endpoint and consumes it:
 * a LogoutRequest's ID and the LogoutRequest a LogoutResponse answers can never be used again.
 * Nothing is read from the XML before its signature holds. Throws `invalid` with the reason.
 */
export async function receiveLogoutMessage(
  db: Executor,
  urls: Urls,
  provider: SamlProviderRow,
  rawQuery: string,
  now = Date.now(),
): Promise<IdpLogoutRequest | IdpLogoutResponse> {
  const parameters = redirectParameters(rawQuery);
  const request = parameters.get("SAMLRequest");
  const response = parameters.get("SAMLResponse");
  if ((request ? 1 : 0) + (response ? 1 : 0) !== 1) {
    throw invalid("A logout message carries exactly one SAMLRequest or SAMLResponse (HTTP-Redirect binding).");
  }
  const kind = request ? "SAMLRequest" : "SAMLResponse";
  checkRedirectSignature(provider, parameters, kind);
  const root = parseMessage(inflate((request ?? response)?.value ?? ""));
  const expected = request ? "LogoutRequest" : "LogoutResponse";
  if (root.localName !== expected || root.namespaceURI !== PROTOCOL_NS) {
    throw invalid(`The ${kind} is not a ${expected} (it is a ${root.localName ?? "unknown"}).`);
  }
  const { sloURL } = serviceProviderUrls(urls, provider.id);
  const issued = checkEnvelope(root, provider, sloURL, now);

  if (response) {
    const inResponseTo = root.getAttribute("InResponseTo");
    if (!inResponseTo) throw invalid("The LogoutResponse does not say which LogoutRequest it answers (no InResponseTo).");
    if (!(await takeSamlRequest(db, provider.id, inResponseTo, "logout"))) {
      throw invalid(
        "The LogoutResponse answers a logout request that this server did not send, that was already answered, or that expired.",
      );
    }
    const status = childElements(root, PROTOCOL_NS, "Status")[0];
    const code = status ? childElements(status, PROTOCOL_NS, "StatusCode")[0] : undefined;
    const top = code?.getAttribute("Value") ?? "";
    const second = code ? childElements(code, PROTOCOL_NS, "StatusCode")[0]?.getAttribute("Value") : undefined;
    return { type: "response", success: top === SUCCESS, status: second ? `${top} (${second})` : top || "no status" };
  }

  const id = root.getAttribute("ID");
  if (!id) throw invalid("The LogoutRequest has no ID.");
  const notOnOrAfter = root.getAttribute("NotOnOrAfter");
  if (notOnOrAfter && !(Date.parse(notOnOrAfter) + CLOCK_SKEW_MS > now)) throw invalid("The LogoutRequest has expired (NotOnOrAfter).");
  if (childElements(root, ASSERTION_NS, "EncryptedID").length > 0) {
    throw invalid("The LogoutRequest names its subject with an EncryptedID; send the NameID in clear (the message is signed).");
  }
  const nameIds = childElements(root, ASSERTION_NS, "NameID");
  const nameId = nameIds[0]?.textContent?.trim() ?? "";
  if (nameIds.length !== 1 || nameId === "") throw invalid("The LogoutRequest must name exactly one NameID.");
  const sessionIndexes = childElements(root, PROTOCOL_NS, "SessionIndex")
    .map((e) => e.textContent?.trim() ?? "")
    .filter((s) => s !== "");
  const remembered = await recordAssertionUse(db, {
    providerId: provider.id,
    assertionId: id,
    expiresAt: new Date(issued + LOGOUT_MESSAGE_MAX_AGE_MS + 2 * CLOCK_SKEW_MS).toISOString(),
  });
  if (!remembered) throw invalid("This LogoutRequest was already received; it is not processed twice.");
  return { type: "request", id, nameId, sessionIndexes, relayState: parameters.get("RelayState")?.value };
}
