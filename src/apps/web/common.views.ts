/** Small pieces of markup every area of the app uses: dates, emojis, badges, empty lists. */
import { emojiCharacter } from "../../content/document/loose.js";
import { html, type SafeHtml } from "../../content/html/safe-html.js";

/** `2026-11-25T15:45:58.000Z` as `2026-11-25 15:45 UTC`, in a <time> element. */
export function when(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
}

/**
 * An emoji as text followed by a space, or nothing. GitBook stores emojis as code points in hex
 * ("1f4d8", "1f469-200d-1f4bb"); anything else is shown as written (escaped by the caller).
 */
export function emojiText(emoji: string | null | undefined): string {
  return emoji ? `${emojiCharacter(emoji)} ` : "";
}

export function badge(text: string, tone: "ok" | "bad" | "wait" | "" = ""): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** The state of a background processing (an OpenAPI spec's) as a badge of its tone. */
export function processingBadge(state: string): SafeHtml {
  return badge(state, state === "complete" || state === "succeeded" ? "ok" : state === "failed" || state === "error" ? "bad" : "wait");
}

export function emptyNote(text: string): SafeHtml {
  return html`<p class="muted">${text}</p>`;
}

/** A rename form behind a "Rename" disclosure: `label` names what is renamed ("space", "collection"). */
export function renameForm(action: string, title: string, label: string, csrf: string, maxLength: number): SafeHtml {
  return html`<details class="menu rename-form"><summary class="button">Rename</summary>
    <form method="post" action="${action}" class="actions"><input type="hidden" name="_csrf" value="${csrf}">
      <input name="title" value="${title}" required maxlength="${maxLength}" aria-label="New title of the ${label}">
      <button type="submit" class="primary">Save title</button></form></details>`;
}
