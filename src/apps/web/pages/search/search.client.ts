/** The header's search box as the browser runs it (served by pages/static/script.handler.ts). */

export const SEARCH_SCRIPT_PATH = "/app/scripts/search.js";

/**
 * Ctrl+K (⌘K) or "/" goes to the box; results come as one types (the JSON endpoint, newest answer
 * wins); arrows move through them, Enter opens the one chosen (or the first), Escape closes them.
 * A combobox with a listbox, as WAI-ARIA describes it. Without script the box submits to the
 * results page.
 */
export const SEARCH_SCRIPT = `(() => {
  const form = document.getElementById("search-box");
  const input = document.getElementById("search-input");
  const list = document.getElementById("search-results");
  if (!form || !input || !list) return;
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", list.id);
  let items = [];
  let active = -1;
  let timer = 0;
  let latest = 0;
  const open = (yes) => {
    list.hidden = !yes;
    input.setAttribute("aria-expanded", yes ? "true" : "false");
    if (!yes) choose(-1);
  };
  const choose = (index) => {
    active = index;
    list.querySelectorAll("[role=option]").forEach((option, i) => option.setAttribute("aria-selected", i === index ? "true" : "false"));
    if (index >= 0) {
      const option = document.getElementById("search-option-" + index);
      input.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else input.removeAttribute("aria-activedescendant");
  };
  const show = (found, query) => {
    items = found;
    list.replaceChildren();
    if (found.length === 0) {
      const none = document.createElement("li");
      none.className = "search-none";
      none.setAttribute("role", "presentation");
      none.textContent = "No page matches “" + query + "”.";
      list.append(none);
    }
    found.forEach((item, i) => {
      const option = document.createElement("li");
      option.id = "search-option-" + i;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      const label = document.createElement("span");
      label.className = "search-label";
      label.textContent = item.label;
      const trail = document.createElement("span");
      trail.className = "search-trail";
      trail.textContent = item.trail;
      option.append(label, trail);
      option.addEventListener("mousedown", (event) => event.preventDefault());
      option.addEventListener("click", () => { window.location.href = item.url; });
      list.append(option);
    });
    active = -1;
    open(true);
  };
  const refresh = async () => {
    const query = input.value.trim();
    const ticket = ++latest;
    if (!query) return open(false);
    try {
      const res = await fetch(form.dataset.json + "?q=" + encodeURIComponent(query), { credentials: "same-origin", headers: { accept: "application/json" } });
      if (ticket !== latest || !res.ok) return;
      show((await res.json()).items, query);
    } catch {}
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 120);
  });
  input.addEventListener("focus", () => { if (items.length > 0 && input.value.trim()) open(true); });
  input.addEventListener("blur", () => open(false));
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (list.hidden || items.length === 0) return;
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      // From the box (-1) through each result and back to the box.
      const next = active + step;
      choose(next >= items.length ? -1 : next < -1 ? items.length - 1 : next);
    } else if (event.key === "Enter") {
      const item = items[active >= 0 ? active : 0];
      if (item && !list.hidden) {
        event.preventDefault();
        window.location.href = item.url;
      }
    } else if (event.key === "Escape") {
      if (!list.hidden) open(false);
      else input.blur();
    }
  });
  document.addEventListener("keydown", (event) => {
    // Taken already (the block editor's Ctrl/⌘-K opens its link dialog).
    if (event.defaultPrevented) return;
    const typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      input.focus();
      input.select();
    } else if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
})();
`;
