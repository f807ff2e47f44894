/*
 * Progressive enhancement of rendered page content (src/content/html); the content works without
 * it. Copy buttons, code too wide for its block made focusable (the keyboard scrolls it), tabs
 * that follow each other and the URL hash, collapsible code, annotation popovers, images that
 * follow <html data-theme>, and mermaid diagrams when the mermaid bundle is loaded (before this
 * script). No dependencies.
 */
(() => {
  const root = document.documentElement;
  const isDark = () =>
    root.dataset.theme === "dark" || (root.dataset.theme !== "light" && matchMedia("(prefers-color-scheme: dark)").matches);

  // ---- copy buttons
  function setupCopy() {
    for (const button of document.querySelectorAll(".q-copy")) {
      if (!navigator.clipboard) continue;
      button.hidden = false;
      button.addEventListener("click", async () => {
        const code = button.closest(".q-code")?.querySelector("pre code");
        if (!code) return;
        const text = code.textContent;
        try {
          await navigator.clipboard.writeText(text);
          button.textContent = "Copied";
        } catch {
          button.textContent = "Copy failed";
        }
        setTimeout(() => {
          button.textContent = "Copy";
        }, 1500);
      });
    }
  }

  // ---- code wider than its block: focusable, so that the keyboard can scroll it
  // Code blocks come focusable; one that does not scroll sideways is taken out of the tab order
  // once it is near the screen (measured then: measuring every block at once would lay out the
  // whole page, code out of sight included), and again when the window is resized.
  function setupScrollableCode() {
    const near = new Set();
    const mark = (pre) => {
      if (pre.scrollWidth > pre.clientWidth) pre.tabIndex = 0;
      else pre.removeAttribute("tabindex");
    };
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) {
            near.add(entry.target);
            mark(entry.target);
          } else near.delete(entry.target);
        }
      },
      { rootMargin: "50% 0px" },
    );
    for (const pre of document.querySelectorAll(".q-code pre")) observer.observe(pre);
    let pending = 0;
    addEventListener("resize", () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => {
        for (const pre of near) mark(pre);
      });
    });
  }

  // ---- collapsible code
  function setupCollapsibleCode() {
    for (const figure of document.querySelectorAll(".q-code-collapsible[data-collapsed-lines]")) {
      const lines = Number(figure.dataset.collapsedLines);
      if (!(lines > 0)) continue;
      figure.style.setProperty("--q-collapsed-lines", String(lines));
      figure.classList.add("q-code-collapsed");
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "q-code-toggle";
      toggle.textContent = "Show all";
      toggle.setAttribute("aria-expanded", "false");
      toggle.addEventListener("click", () => {
        const collapsed = figure.classList.toggle("q-code-collapsed");
        toggle.textContent = collapsed ? "Show all" : "Show less";
        toggle.setAttribute("aria-expanded", String(!collapsed));
      });
      figure.append(toggle);
    }
  }

  // ---- tabs: choosing "Python" in one group chooses it in every group that has it, and is remembered
  const TAB_KEY = "q-tab";
  function selectTabs(title) {
    for (const label of document.querySelectorAll(".q-tab-label")) {
      if (label.textContent.trim() !== title) continue;
      const radio = document.getElementById(label.htmlFor);
      if (radio) radio.checked = true;
    }
  }
  function setupTabs() {
    for (const radio of document.querySelectorAll(".q-tab-radio")) {
      radio.addEventListener("change", () => {
        const title = radio.nextElementSibling?.textContent.trim();
        if (!title) return;
        selectTabs(title);
        try {
          localStorage.setItem(TAB_KEY, title);
        } catch {}
      });
    }
    try {
      const saved = localStorage.getItem(TAB_KEY);
      if (saved) selectTabs(saved);
    } catch {}
  }

  // ---- a link to something inside a closed tab or expandable opens it
  function reveal() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    for (let node = target; node && node !== document.body; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
      if (node.classList?.contains("q-tab-panel")) {
        const radio = node.previousElementSibling?.previousElementSibling;
        if (radio?.classList.contains("q-tab-radio")) radio.checked = true;
      }
    }
    target.scrollIntoView();
  }

  // ---- annotation popovers
  let popover;
  function closePopover() {
    popover?.remove();
    popover = undefined;
  }
  function setupNotes() {
    for (const link of document.querySelectorAll("a.q-annotated")) {
      link.addEventListener("click", (event) => {
        const note = document.getElementById(link.getAttribute("href").slice(1));
        if (!note) return;
        event.preventDefault();
        const same = popover?.dataset.for === note.id;
        closePopover();
        if (same) return;
        popover = document.createElement("div");
        popover.className = "q-popover";
        popover.setAttribute("role", "note");
        popover.dataset.for = note.id;
        for (const child of note.childNodes) {
          if (child.nodeType === 1 && child.classList.contains("q-note-back")) continue;
          popover.append(child.cloneNode(true));
        }
        document.body.append(popover);
        const rect = link.getBoundingClientRect();
        const left = Math.max(8, Math.min(rect.left + scrollX, scrollX + document.documentElement.clientWidth - popover.offsetWidth - 8));
        popover.style.left = `${left}px`;
        popover.style.top = `${rect.bottom + scrollY + 6}px`;
      });
    }
    document.addEventListener("click", (event) => {
      if (popover && !popover.contains(event.target) && !event.target.closest?.("a.q-annotated")) closePopover();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") closePopover();
    });
  }

  // ---- dark image variants follow an explicit <html data-theme>, not only the system setting
  function applyTheme() {
    const theme = root.dataset.theme;
    for (const source of document.querySelectorAll("source[data-q-dark]")) {
      source.media = theme === "dark" ? "all" : theme === "light" ? "not all" : "(prefers-color-scheme: dark)";
    }
  }

  // ---- mermaid
  function renderMermaid() {
    const mermaid = window.mermaid;
    const nodes = document.querySelectorAll("pre.q-mermaid");
    if (!mermaid || nodes.length === 0) return;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: isDark() ? "dark" : "default" });
    mermaid.run({ nodes }).catch(() => {});
  }

  function start() {
    setupCopy();
    setupScrollableCode();
    setupCollapsibleCode();
    setupTabs();
    setupNotes();
    applyTheme();
    new MutationObserver(applyTheme).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
    renderMermaid();
    reveal();
    addEventListener("hashchange", reveal);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
