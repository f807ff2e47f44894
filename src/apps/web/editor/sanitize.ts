/**
 * Pasted HTML is cleaned before ProseMirror reads it. Both ProseMirror's reading document
 * (`createHTMLDocument`) and DOMParser's have no browsing context and run no script; the editor's
 * parse rules then keep only what they read. This adds a layer that does not depend on either:
 * every event handler attribute, script, style, frame and form element is removed and
 * `javascript:`-like addresses dropped before anything else sees the markup. (Chromium still
 * reports the page's `script-src` refusing an inline handler while parsing one: nothing ran.)
 */

const DROP =
  "script, style, iframe, frame, frameset, object, embed, applet, form, input, button, select, textarea, link, meta, base, template, noscript, svg, math";
const URL_ATTRIBUTES = new Set(["href", "src", "srcset", "action", "formaction", "xlink:href", "poster", "background"]);

export function sanitizePastedHtml(markup: string): string {
  const doc = new DOMParser().parseFromString(markup, "text/html");
  for (const element of [...doc.querySelectorAll(DROP)]) element.remove();
  for (const element of [...doc.body.querySelectorAll("*")]) {
    for (const attribute of [...element.attributes]) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith("on")) element.removeAttribute(attribute.name);
      else if (URL_ATTRIBUTES.has(name) && !/^\s*(https?:|mailto:|#|\/(?!\/))/i.test(attribute.value))
        element.removeAttribute(attribute.name);
      else if (name === "style" && /url\s*\(|expression\s*\(/i.test(attribute.value)) element.removeAttribute(attribute.name);
    }
  }
  return doc.body.innerHTML;
}
