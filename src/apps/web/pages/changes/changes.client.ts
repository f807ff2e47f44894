/** The scripts of the change-request pages, as the browser runs them (served by pages/static/script.handler.ts). */

export const SETTINGS_SCRIPT_PATH = "/app/scripts/changes-settings.js";

/**
 * The settings form's address follows the slug (or the title, when the slug is empty) as one
 * types, with the server's slug rule; the place page shows the places under a parent once chosen.
 */
export const SETTINGS_SCRIPT = `(() => {
  const slugify = (text) => text.normalize("NFKC").toLowerCase().replace(/[^\\p{L}\\p{N}]+/gu, "-").replace(/^-+|-+$/g, "") || "page";
  const encode = (path) => path.split("/").map(encodeURIComponent).join("/");
  const form = document.getElementById("settings-form");
  if (form) {
    const title = document.getElementById("title");
    const slug = document.getElementById("slug");
    const update = () => {
      const own = slug.value.trim() || slugify(title.value);
      const path = form.dataset.parentPath ? form.dataset.parentPath + "/" + own : own;
      for (const code of form.querySelectorAll(".new-path")) code.textContent = "/" + path;
      for (const link of form.querySelectorAll(".new-url")) {
        link.href = link.dataset.base + "/" + encode(path);
        link.textContent = link.href;
      }
    };
    title.addEventListener("input", update);
    slug.addEventListener("input", update);
    // A refused field's message goes once the field is edited; the server checks it again on save.
    for (const field of form.querySelectorAll("[aria-invalid]")) {
      field.addEventListener("input", () => {
        field.removeAttribute("aria-invalid");
        field.removeAttribute("aria-describedby");
        document.getElementById("settings-problem")?.remove();
      }, { once: true });
    }
  }
  const choose = document.getElementById("place-parent");
  if (choose) {
    const button = document.getElementById("show-places");
    if (button) button.style.display = "none";
    choose.elements.parent.addEventListener("change", () => choose.submit());
  }
})();
`;

export const EDIT_SCRIPT_PATH = "/app/scripts/changes-edit.js";

/** The edit page's live preview: posts the Markdown (debounced) and shows the server's rendering. */
export const EDIT_SCRIPT = `(() => {
  const form = document.getElementById("edit-form");
  const area = document.getElementById("markdown");
  const pane = document.getElementById("preview");
  const button = document.getElementById("preview-button");
  if (!form || !area || !pane) return;
  if (button) button.style.display = "none";
  let timer = 0;
  let latest = 0;
  const refresh = async () => {
    const ticket = ++latest;
    const body = new URLSearchParams({ _csrf: form.elements._csrf.value, markdown: area.value });
    try {
      const res = await fetch(form.dataset.preview, { method: "POST", body, credentials: "same-origin" });
      if (ticket !== latest) return;
      if (res.ok) pane.innerHTML = await res.text();
    } catch {}
  };
  area.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
})();
`;

export const TREE_SCRIPT_PATH = "/app/scripts/changes-tree.js";

/**
 * Drag and drop in a change request's page tree: a page dropped on the upper edge of another goes
 * before it, on the lower edge after it, in the middle under it. The drop posts the move form the
 * buttons post (the server checks it as it checks them); without this script the buttons remain.
 */
export const TREE_SCRIPT = `(() => {
  const tree = document.querySelector(".page-tree[data-base]");
  if (!tree) return;
  tree.classList.add("dnd");
  let dragged = null;
  let marked = null;
  const rowOf = (target) => target.closest && target.closest(".tree-row");
  const itemOf = (row) => row.parentElement;
  const unmark = () => {
    if (marked) marked.classList.remove("drop-before", "drop-after", "drop-inside");
    marked = null;
  };
  const zone = (row, event) => {
    const box = row.getBoundingClientRect();
    const y = (event.clientY - box.top) / box.height;
    if (y < 0.3) return "before";
    if (y > 0.7) return "after";
    return itemOf(row).dataset.kind === "link" ? (y < 0.5 ? "before" : "after") : "inside";
  };
  for (const item of tree.querySelectorAll("li[data-page]")) {
    const handle = item.querySelector(".tree-row .drag-handle");
    if (!handle) continue;
    handle.draggable = true;
    handle.addEventListener("dragstart", (event) => {
      dragged = item;
      item.classList.add("dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", item.dataset.page);
    });
    handle.addEventListener("dragend", () => {
      item.classList.remove("dragging");
      dragged = null;
      unmark();
    });
  }
  tree.addEventListener("dragover", (event) => {
    const row = rowOf(event.target);
    if (!dragged || !row || dragged.contains(row)) return unmark();
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    const where = zone(row, event);
    if (marked !== row) unmark();
    marked = row;
    row.classList.remove("drop-before", "drop-after", "drop-inside");
    row.classList.add("drop-" + where);
  });
  tree.addEventListener("dragleave", (event) => {
    if (!tree.contains(event.relatedTarget)) unmark();
  });
  tree.addEventListener("drop", (event) => {
    const row = rowOf(event.target);
    unmark();
    if (!dragged || !row || dragged.contains(row)) return;
    event.preventDefault();
    const target = itemOf(row);
    const where = zone(row, event);
    const parentItem = target.parentElement.closest("li[data-page]");
    const fields = { _csrf: tree.dataset.csrf, to: "parent" };
    if (where === "inside") fields.parent = target.dataset.page;
    else {
      fields.parent = parentItem ? parentItem.dataset.page : "";
      fields[where] = target.dataset.page;
    }
    const form = document.createElement("form");
    form.method = "post";
    form.action = tree.dataset.base + "/p/" + encodeURIComponent(dragged.dataset.page) + "/move";
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  });
})();
`;
