/** A site's customization panel: its form for the site's editors, a note for everyone else. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { SiteCustomization } from "../../../../modules/sites/customization.schemas.js";

export function customizationPanel(view: {
  site: { title: string };
  /** The form's address; undefined when the member may not change the site. */
  action: string | undefined;
  settings: SiteCustomization;
  /** Whether the site was ever customized. */
  customized: boolean;
  saved: boolean;
  csrf: string;
}): SafeHtml {
  const { site, action, settings } = view;
  if (!action) {
    return html`<section class="card" id="customization"><h2 style="margin-top:0">Customization</h2>
        <p class="muted small">Only members with the create role, or the edit level on this site, can change how the site looks.</p></section>`;
  }
  const { primaryColor } = settings.styling;
  const logo = settings.header.logo;
  const announcement = settings.announcement;
  const option = (value: string, label: string, current: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ""}>${label}</option>`;
  const checked = (on: boolean) => (on ? html` checked` : "");
  return html`<section class="card" id="customization"><h2 style="margin-top:0">Customization</h2>
      ${view.saved ? html`<p class="badge ok">Saved: readers see it on their next page.</p>` : ""}
      ${view.customized ? "" : html`<p class="muted small">Never customized: the site follows each reader's light or dark system theme, in Quire's colors.</p>`}
      <form class="stack" method="post" action="${action}"><input type="hidden" name="_csrf" value="${view.csrf}">
        <label>Title readers see <input name="title" maxlength="128" value="${settings.title ?? ""}" placeholder="${site.title}"></label>
        <label>Primary color (light theme) <input type="color" name="primaryLight" value="${primaryColor.light.toLowerCase()}"></label>
        <label>Primary color (dark theme) <input type="color" name="primaryDark" value="${primaryColor.dark.toLowerCase()}"></label>
        <label>Default theme <select name="themeDefault">${option("light", "Light", settings.themes.default)}${option("dark", "Dark", settings.themes.default)}</select></label>
        <label class="check"><input type="checkbox" name="themeToggle" value="on"${checked(settings.themes.toggeable)}> Readers can switch between light and dark</label>
        <label>Logo URL (light theme) <input type="url" name="logoLight" maxlength="2048" value="${logo?.light ?? ""}" placeholder="https://…/logo.svg"></label>
        <label>Logo URL (dark theme) <input type="url" name="logoDark" maxlength="2048" value="${logo?.dark ?? ""}" placeholder="(the light one)"></label>
        <label class="check"><input type="checkbox" name="announcementEnabled" value="on"${checked(announcement?.enabled === true)}> Show an announcement</label>
        <label>Announcement <input name="announcementMessage" maxlength="128" value="${announcement?.message ?? ""}"></label>
        <label>Announcement style <select name="announcementStyle">${(["info", "warning", "danger", "success"] as const).map((s) => option(s, s, announcement?.style ?? "info"))}</select></label>
        <label>Footer copyright <input name="copyright" maxlength="300" value="${settings.footer.copyright ?? ""}" placeholder="${site.title}"></label>
        <label>Theme <select name="styleTheme">${option("clean", "Clean: translucent header, minimal lines", settings.styling.theme)}${option("muted", "Muted: soft, lower contrast", settings.styling.theme)}${option("bold", "Bold: header in the primary color", settings.styling.theme)}${option("gradient", "Gradient: washes of the primary and tint colors", settings.styling.theme)}</select></label>
        <input type="hidden" name="features" value="1">
        <label class="check"><input type="checkbox" name="pdfEnabled" value="on"${checked(settings.pdf.enabled !== false)}> Offer each page as a PDF ("Download as PDF")</label>
        <label class="check"><input type="checkbox" name="feedbackEnabled" value="on"${checked(settings.feedback.enabled === true)}> Ask readers "Was this page helpful?"</label>
        <label class="check"><input type="checkbox" name="editLinks" value="on"${checked(settings.git.showEditLink === true)}> Link pages synced from Git to their file ("Edit on GitHub / GitLab")</label>
        <label class="check"><input type="checkbox" name="trademark" value="on"${checked(settings.trademark.enabled !== false)}> Show "Published with Quire" in the footer</label>
        <div><button class="primary" type="submit">Save customization</button></div>
      </form></section>`;
}
