/**
 * The SCIM filters identity providers send (RFC 7644 3.4.2.2): `attr eq "value"` joined by `and`,
 * and `members[value eq "id"]`. Anything else is refused with `invalidFilter`. Pure.
 */
import { invalid } from "../../lib/errors.js";

export interface ScimFilter {
  attribute: string;
  value: string;
}

const COMPARISON = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;
const MEMBERS = /^\s*members\[\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$/i;

/** The attributes each resource may be filtered on (lower case; `urn:...:User:userName` is `username`). */
export function parseFilter(text: string | undefined, allowed: readonly string[]): ScimFilter[] {
  if (text === undefined || text.trim() === "") return [];
  if (text.length > 1000) throw invalid("invalidFilter: the filter is longer than 1000 characters.");
  return text.split(/\s+and\s+/i).map((part) => {
    const members = MEMBERS.exec(part);
    if (members && allowed.includes("members.value")) return { attribute: "members.value", value: unescapeValue(members[1] ?? "") };
    const match = COMPARISON.exec(part);
    const attribute = match?.[1]?.toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/, "");
    if (!match || attribute === undefined || !allowed.includes(attribute)) {
      throw invalid(
        `invalidFilter: "${part.trim().slice(0, 200)}" is not supported; filter with ${allowed.map((a) => `${a} eq "…"`).join(", ")}, joined by and.`,
      );
    }
    return { attribute, value: unescapeValue(match[2] ?? "") };
  });
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, "$1");
}
