/**
 * This service as a SAML service provider, one configuration per identity provider, with
 * @node-saml/node-saml doing the protocol and the XML signature checks. On top of what the library
 * checks (signature of the response or of the assertion against the provider's certificate,
 * issuer, audience, time window, InResponseTo of a request we sent), this module checks what it
 * leaves out: the response's Destination and the assertion's Recipient are this provider's ACS
 * URL, each request is answered once, each assertion is used once (a unique key in the database,
 * so a replay is refused by every process), and the NameID is an email address.
 *
 * Every value read here comes from the XML that the library returns as verified (the signed
 * assertion), never from the document as posted, so a signature-wrapping attack cannot change it.
 */
import {
  type CacheItem,
  type CacheProvider,
  generateServiceProviderMetadata,
  type Profile,
  SAML,
  ValidateInResponseTo,
} from "@node-saml/node-saml";
import { DOMParser } from "@xmldom/xmldom";
import type { Executor } from "../../db/database.js";
import type { SamlProviderRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { invalid } from "../../lib/errors.js";
import { randomBase62 } from "../../lib/ids.js";
import { serviceProviderUrls } from "./saml.presenter.js";
import { getSamlRequest, recordAssertionUse, type SamlRequestKind, saveSamlRequest, takeSamlRequest } from "./saml.queries.js";

export const ASSERTION_NS = "urn:oasis:names:tc:SAML:2.0:assertion";
export const PROTOCOL_NS = "urn:oasis:names:tc:SAML:2.0:protocol";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
export const UNSPECIFIED_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** How long a member has to finish signing in at the identity provider. */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
/** Clock difference tolerated between this server and the identity provider. */
export const CLOCK_SKEW_MS = 60 * 1000;
/** How long an assertion is remembered when it states no end of validity. */
const DEFAULT_ASSERTION_MEMORY_MS = 24 * 60 * 60 * 1000;

/** node-saml's store of sent requests, kept in the database so that any process may receive the answer. */
export class DatabaseRequestCache implements CacheProvider {
  /** Requests whose row this instance deleted: only one validation can delete a given row. */
  readonly taken = new Set<string>();
  constructor(
    private readonly db: Executor,
    private readonly providerId: string,
    private readonly kind: SamlRequestKind = "authn",
  ) {}
  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    await saveSamlRequest(this.db, { id: key, providerId: this.providerId, ttlMs: REQUEST_TTL_MS, kind: this.kind });
    return { value, createdAt: Date.now() };
  }
  async getAsync(key: string): Promise<string | null> {
    const row = await getSamlRequest(this.db, this.providerId, key, this.kind);
    return row ? row.createdAt : null;
  }
  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null) return null;
    if (!(await takeSamlRequest(this.db, this.providerId, key, this.kind))) return null;
    this.taken.add(key);
    return key;
  }
}

/** The node-saml configuration of one provider. Only an `active` provider can be used. */
export function samlFor(db: Executor, urls: Urls, provider: SamlProviderRow, cache = new DatabaseRequestCache(db, provider.id)): SAML {
  const sp = serviceProviderUrls(urls, provider.id);
  return new SAML({
    entryPoint: provider.ssoUrl ?? undefined,
    issuer: sp.entityID,
    callbackUrl: sp.acsURL,
    audience: sp.entityID,
    idpCert: provider.certificate,
    identifierFormat: EMAIL_FORMAT,
    // Either the whole response or the assertion must carry a valid signature.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: cache,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
    // Requests sent by redirect (AuthnRequest, LogoutRequest) are signed with this provider's key.
    privateKey: provider.spPrivateKey,
    logoutUrl: provider.sloUrl ?? undefined,
    // An EncryptedAssertion is decrypted with this provider's key; a plain signed one is accepted too.
    decryptionPvk: provider.spPrivateKey,
  });
}

const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const METADATA_NS = "urn:oasis:names:tc:SAML:2.0:metadata";

/**
 * This service provider's SAML metadata for one provider: entity ID, ACS URL (HTTP-POST), single
 * logout endpoint (HTTP-Redirect), NameID format, and its certificate both to check the requests
 * it signs (KeyDescriptor use="signing") and to encrypt assertions to (use="encryption").
 */
export function serviceProviderMetadata(urls: Urls, provider: SamlProviderRow): string {
  const sp = serviceProviderUrls(urls, provider.id);
  const xml = generateServiceProviderMetadata({
    issuer: sp.entityID,
    callbackUrl: sp.acsURL,
    logoutCallbackUrl: sp.sloURL,
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: true,
    privateKey: provider.spPrivateKey,
    publicCerts: provider.spCertificate,
    decryptionPvk: provider.spPrivateKey,
    decryptionCert: provider.spCertificate,
  });
  // node-saml always writes the HTTP-POST binding; the endpoint speaks HTTP-Redirect (see saml-slo.adapter.ts).
  const doc = new DOMParser().parseFromString(xml, "text/xml");
  for (const slo of Array.from(doc.getElementsByTagNameNS(METADATA_NS, "SingleLogoutService")))
    slo.setAttribute("Binding", REDIRECT_BINDING);
  return doc.toString();
}

/** The identity provider's address to send the browser to, with a fresh AuthnRequest and the RelayState. */
export async function startSignIn(
  db: Executor,
  urls: Urls,
  provider: SamlProviderRow,
  relayState: string,
): Promise<{ url: string; requestId: string }> {
  const requestId = `_${randomBase62(40)}`;
  const saml = samlFor(db, urls, provider);
  saml.options.generateUniqueId = () => requestId;
  return { url: await saml.getAuthorizeUrlAsync(relayState, undefined, {}), requestId };
}

/** Who the identity provider says signed in. */
export interface SamlIdentity {
  email: string;
  firstName: string | undefined;
  lastName: string | undefined;
  assertionId: string;
  /** The AuthnRequest this answers. */
  requestId: string;
  /** The assertion's subject and session, as the IdP wrote them: a LogoutRequest names them again. */
  subject: {
    nameId: string;
    nameIdFormat: string | null;
    nameQualifier: string | null;
    spNameQualifier: string | null;
    sessionIndex: string | null;
  };
}

function firstValue(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function laterOf(a: string | undefined, b: string | null): string | undefined {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Reads what node-saml does not check from the verified assertion XML. */
function inspectAssertion(assertionXml: string, acsUrl: string, idpEntityId: string): { id: string; expiresAt: string } {
  const doc = new DOMParser().parseFromString(assertionXml, "text/xml");
  const assertion = doc.documentElement;
  if (assertion?.localName !== "Assertion" || assertion.namespaceURI !== ASSERTION_NS) {
    throw invalid("The SAML response holds no assertion.");
  }
  const id = assertion.getAttribute("ID");
  if (!id) throw invalid("The SAML assertion has no ID.");
  const issuer = Array.from(assertion.childNodes).find(
    (n): n is Element => n.nodeType === 1 && (n as Element).localName === "Issuer" && (n as Element).namespaceURI === ASSERTION_NS,
  );
  const issuerValue = issuer?.textContent?.trim() ?? "";
  if (issuerValue !== idpEntityId) {
    throw invalid(`The SAML assertion comes from another issuer ("${issuerValue}"), not this provider's entity ID.`);
  }
  const confirmations = Array.from(assertion.getElementsByTagNameNS(ASSERTION_NS, "SubjectConfirmationData"));
  if (confirmations.length === 0) throw invalid("The SAML assertion has no SubjectConfirmationData.");
  let expiresAt: string | undefined;
  for (const data of confirmations) {
    const recipient = data.getAttribute("Recipient");
    if (recipient !== acsUrl) {
      throw invalid(`The SAML assertion is meant for another recipient ("${recipient ?? "none"}"), not this provider's ACS URL.`);
    }
    expiresAt = laterOf(expiresAt, data.getAttribute("NotOnOrAfter"));
  }
  for (const conditions of Array.from(assertion.getElementsByTagNameNS(ASSERTION_NS, "Conditions"))) {
    expiresAt = laterOf(expiresAt, conditions.getAttribute("NotOnOrAfter"));
  }
  const until = expiresAt ? Date.parse(expiresAt) + CLOCK_SKEW_MS : Date.now() + DEFAULT_ASSERTION_MEMORY_MS;
  return { id, expiresAt: new Date(Number.isFinite(until) ? until : Date.now() + DEFAULT_ASSERTION_MEMORY_MS).toISOString() };
}

/** The Destination of the posted response, when it states one, must be this provider's ACS URL. */
function checkDestination(samlResponse: string, acsUrl: string): void {
  const xml = Buffer.from(samlResponse, "base64").toString("utf8");
  const root = new DOMParser({ errorHandler: () => {} }).parseFromString(xml, "text/xml").documentElement;
  if (root?.localName !== "Response" || root.namespaceURI !== PROTOCOL_NS) throw invalid("The SAML message is not a Response.");
  const destination = root.getAttribute("Destination");
  if (destination && destination !== acsUrl) {
    throw invalid(`The SAML response was sent to another destination ("${destination}"), not this provider's ACS URL.`);
  }
}

/** The Response's direct children that node-saml takes its assertion from. */
function assertionChildren(samlResponse: string): { plain: number; encrypted: number } {
  const xml = Buffer.from(samlResponse, "base64").toString("utf8");
  const root = new DOMParser({ errorHandler: () => {} }).parseFromString(xml, "text/xml").documentElement;
  const children = Array.from(root?.childNodes ?? []).filter((n): n is Element => n.nodeType === 1);
  return {
    plain: children.filter((n) => n.localName === "Assertion").length,
    encrypted: children.filter((n) => n.localName === "EncryptedAssertion").length,
  };
}

const hasEncryptedAssertion = (samlResponse: string) => assertionChildren(samlResponse).encrypted > 0;

/** Errors that node-saml raises after decrypting: they keep their own message. */
function isSignatureOrTimeError(reason: string): boolean {
  return /signature|subject confirmation|audience|issuer|expired|not yet valid|InResponseTo|NotBefore|NotOnOrAfter/i.test(reason);
}

/**
 * Validates a posted SAMLResponse for this provider and consumes it: its request and its
 * assertion can never be used again. Throws `invalid` with the reason when anything is wrong.
 */
export async function consumeResponse(db: Executor, urls: Urls, provider: SamlProviderRow, samlResponse: string): Promise<SamlIdentity> {
  const { acsURL } = serviceProviderUrls(urls, provider.id);
  checkDestination(samlResponse, acsURL);
  if (provider.requireEncryptedAssertions === 1) {
    // node-saml reads the assertion from these same children: with no plain one, it used the encrypted one.
    const { plain, encrypted } = assertionChildren(samlResponse);
    if (plain > 0 || encrypted === 0) {
      throw invalid(
        "This SAML provider requires encrypted assertions, and the response holds an unencrypted one. " +
          "Turn on assertion encryption in the identity provider, with the certificate of this provider's SP metadata.",
      );
    }
  }
  let profile: Profile | null;
  const requests = new DatabaseRequestCache(db, provider.id);
  try {
    ({ profile } = await samlFor(db, urls, provider, requests).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    const reason = (err as Error).message;
    if (hasEncryptedAssertion(samlResponse) && !isSignatureOrTimeError(reason)) {
      throw invalid(
        `The SAML response was refused: its encrypted assertion could not be decrypted with this provider's key (${reason}). ` +
          'The identity provider must encrypt to the certificate in this provider\'s SP metadata (KeyDescriptor use="encryption"); ' +
          "reload that metadata into the identity provider.",
      );
    }
    // node-saml says this when every SubjectConfirmation is outside its time window (or names no bearer).
    const hint = /subject confirmation/i.test(reason) ? " (the assertion has expired, or is not yet valid)" : "";
    throw invalid(`The SAML response was refused: ${reason}${hint}.`);
  }
  if (!profile) throw invalid("The SAML response holds no signed-in user.");
  const assertion = inspectAssertion(profile.getAssertionXml?.() ?? "", acsURL, provider.entityId);
  const inResponseTo = typeof profile.inResponseTo === "string" ? profile.inResponseTo : undefined;
  // node-saml deletes the request it validated; this validation must be the one that deleted it.
  if (!inResponseTo || !requests.taken.has(inResponseTo)) {
    throw invalid("The SAML response answers a sign-in request that was already answered or has expired.");
  }
  if (!(await recordAssertionUse(db, { providerId: provider.id, assertionId: assertion.id, expiresAt: assertion.expiresAt }))) {
    throw invalid("This SAML assertion was already used to sign in; start signing in again.");
  }
  const format = profile.nameIDFormat ?? UNSPECIFIED_FORMAT;
  if (format !== EMAIL_FORMAT && format !== UNSPECIFIED_FORMAT) {
    throw invalid(`The identity provider must send the email address as NameID (format ${EMAIL_FORMAT}), not ${format}.`);
  }
  const email = (profile.nameID ?? "").trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) throw invalid("The NameID of the SAML assertion is not an email address.");
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  return {
    email,
    firstName: firstValue(attributes.first_name),
    lastName: firstValue(attributes.last_name),
    assertionId: assertion.id,
    requestId: inResponseTo,
    subject: {
      nameId: profile.nameID ?? "",
      nameIdFormat: profile.nameIDFormat || null,
      nameQualifier: profile.nameQualifier || null,
      spNameQualifier: profile.spNameQualifier || null,
      sessionIndex: profile.sessionIndex || null,
    },
  };
}
