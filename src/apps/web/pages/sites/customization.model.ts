/**
 * A site's customization from the web form: the form's fields over the current settings, checked
 * by the same rules as the API's PUT (a 400 page names what is wrong). Empty text fields remove
 * what they set.
 */
import Type, { type Static } from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { customizationFromBody } from "../../../../modules/sites/customization.model.js";
import type { SiteCustomization } from "../../../../modules/sites/customization.schemas.js";
import { Csrf } from "../../web.schemas.js";

const field = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** The common fields of a site's customization. */
export const CustomizationForm = Type.Object({
  ...Csrf,
  title: field(128),
  primaryLight: field(7),
  primaryDark: field(7),
  themeDefault: Type.Optional(Type.Enum(["light", "dark"])),
  themeToggle: field(10),
  logoLight: field(2048),
  logoDark: field(2048),
  announcementEnabled: field(10),
  announcementMessage: field(128),
  announcementStyle: Type.Optional(Type.Enum(["info", "warning", "danger", "success"])),
  copyright: field(300),
  styleTheme: Type.Optional(Type.Enum(["clean", "muted", "bold", "gradient"])),
  /** Set by the form that shows the checkboxes below: without it (an older form), they are left as they are. */
  features: field(10),
  pdfEnabled: field(10),
  feedbackEnabled: field(10),
  editLinks: field(10),
  trademark: field(10),
});

const text = (value: string | undefined) => value?.trim() ?? "";

function color(value: string | undefined, label: string, fallback: string): string {
  const given = text(value);
  if (given === "") return fallback;
  if (!/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(given)) throw invalid(`The ${label} must be a hex color such as #346DDB.`);
  return given;
}

export function customizationFromForm(current: SiteCustomization, form: Static<typeof CustomizationForm>): SiteCustomization {
  const next: SiteCustomization = structuredClone(current);
  const title = text(form.title);
  if (title === "") delete next.title;
  else if (Array.from(title).length < 2)
    throw invalid("The title readers see must be at least 2 characters long (or empty for the site's title).");
  else next.title = title;
  next.styling.primaryColor = {
    light: color(form.primaryLight, "primary color (light theme)", current.styling.primaryColor.light),
    dark: color(form.primaryDark, "primary color (dark theme)", current.styling.primaryColor.dark),
  };
  next.themes = { default: form.themeDefault ?? current.themes.default, toggeable: form.themeToggle === "on" };
  const logoLight = text(form.logoLight);
  const logoDark = text(form.logoDark);
  if (logoLight === "" && logoDark === "") delete next.header.logo;
  else if (logoLight === "") throw invalid("Give the light theme's logo URL too (the dark one alone is not enough).");
  else next.header.logo = { light: logoLight, dark: logoDark || logoLight };
  const message = text(form.announcementMessage);
  const enabled = form.announcementEnabled === "on";
  if (message === "" && !enabled) delete next.announcement;
  else if (Array.from(message).length < 2) throw invalid("The announcement needs a message of at least 2 characters.");
  else next.announcement = { ...next.announcement, enabled, message, style: form.announcementStyle ?? next.announcement?.style ?? "info" };
  const copyright = text(form.copyright);
  if (copyright === "") delete next.footer.copyright;
  else next.footer.copyright = copyright;
  if (form.styleTheme) next.styling.theme = form.styleTheme;
  if (form.features === "1") {
    next.pdf = { enabled: form.pdfEnabled === "on" };
    next.feedback = { enabled: form.feedbackEnabled === "on" };
    next.git = { showEditLink: form.editLinks === "on" };
    next.trademark = { enabled: form.trademark === "on" };
  }
  return customizationFromBody(next);
}
