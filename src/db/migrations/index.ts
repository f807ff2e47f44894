/**
 * Every migration, in order. Listed explicitly (not read from the folder) so the same list works
 * from the TypeScript sources in tests and from the compiled dist/ in production.
 * Append new migrations at the end; never edit or reorder a migration that has shipped.
 */
import type { Migration } from "kysely";
import * as m0001 from "./0001_core.js";
import * as m0002 from "./0002_members_teams.js";
import * as m0004 from "./0004_content.js";
import * as m0005 from "./0005_search.js";
import * as m0006 from "./0006_change_requests.js";
import * as m0007 from "./0007_comments.js";
import * as m0008 from "./0008_pdf_exports.js";
import * as m0009 from "./0009_reviews.js";
import * as m0010 from "./0010_search_prefix.js";
import * as m0011 from "./0011_sites.js";
import * as m0012 from "./0012_rate_limits.js";
import * as m0013 from "./0013_openapi_specs.js";
import * as m0014 from "./0014_translations.js";
import * as m0015 from "./0015_conversations.js";
import * as m0016 from "./0016_saml_sessions.js";
import * as m0017 from "./0017_git_redirects.js";
import * as m0018 from "./0018_git_redirects_cascade.js";
import * as m0019 from "./0019_saml_encryption.js";
import * as m0020 from "./0020_site_customization.js";
import * as m0021 from "./0021_saml_logout.js";
import * as m0022 from "./0022_page_feedback.js";
import * as m0023 from "./0023_email_verification.js";
import * as m0024 from "./0024_search_audience.js";
import * as m0025 from "./0025_collab.js";
import * as m0026 from "./0026_oidc.js";
import * as m0027 from "./0027_scim.js";
import * as m0028 from "./0028_audit_events.js";
import * as m0029 from "./0029_site_redirects.js";
import * as m0031 from "./0031_search_words.js";
import * as m0033 from "./0033_comment_anchors.js";
import * as m0034 from "./0034_site_insights.js";
import * as m0035 from "./0035_site_answer_response.js";
import * as m0036 from "./0036_image_variants.js";
import * as m0037 from "./0037_site_events.js";

export const migrations: Record<string, Migration> = {
  "0001_core": m0001,
  "0002_members_teams": m0002,
  "0004_content": m0004,
  "0005_search": m0005,
  "0006_change_requests": m0006,
  "0007_comments": m0007,
  "0008_pdf_exports": m0008,
  "0009_reviews": m0009,
  "0010_search_prefix": m0010,
  "0011_sites": m0011,
  "0012_rate_limits": m0012,
  "0013_openapi_specs": m0013,
  "0014_translations": m0014,
  "0015_conversations": m0015,
  "0016_saml_sessions": m0016,
  "0017_git_redirects": m0017,
  "0018_git_redirects_cascade": m0018,
  "0019_saml_encryption": m0019,
  "0020_site_customization": m0020,
  "0021_saml_logout": m0021,
  "0022_page_feedback": m0022,
  "0023_email_verification": m0023,
  "0024_search_audience": m0024,
  "0025_collab": m0025,
  "0026_oidc": m0026,
  "0027_scim": m0027,
  "0028_audit_events": m0028,
  "0029_site_redirects": m0029,
  "0031_search_words": m0031,
  "0033_comment_anchors": m0033,
  "0034_site_insights": m0034,
  "0035_site_answer_response": m0035,
  "0036_image_variants": m0036,
  "0037_site_events": m0037,
};
