/** What a browser sees at the end of a single logout. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";

/**
 * The identity provider signed the member out of Quire (`request`), or answered the LogoutRequest
 * sent at sign-out (`response`: whether it ended its own session too).
 */
export function signedOutBody(
  provider: { label: string; orgId: string },
  outcome: { type: "request" } | { type: "response"; success: boolean; status: string },
): SafeHtml {
  const again = html`<p><a href="/app/login?org=${provider.orgId}">Sign in again</a></p>`;
  if (outcome.type === "request") return html`<h1>Signed out</h1><p>${provider.label} signed you out of Quire.</p>${again}`;
  return outcome.success
    ? html`<h1>Signed out</h1><p>You are signed out of Quire and of ${provider.label}.</p>${again}`
    : html`<h1>Signed out</h1><p>You are signed out of Quire. ${provider.label} answered that it could not end your session there (${outcome.status}); close the browser to be sure.</p>${again}`;
}
