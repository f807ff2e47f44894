/**
 * The structure of a site: site spaces (variants), sections and section groups (`SiteSpace`,
 * `SiteSection`, `SiteSectionGroup`, `SiteStructure` in @gitbook/api 0.146.0), with the bodies
 * and positions of the operations that change it.
 */
import Type, { type Static } from "typebox";
import { Id, ListQuery } from "../../http/schemas.js";
import { SpaceSchema } from "../spaces/spaces.schemas.js";

const ObjectId = Type.String({ minLength: 1, maxLength: 100 });

export const SiteSpaceParams = Type.Object({ organizationId: Id, siteId: Id, siteSpaceId: Id });
export const SiteSectionParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionId: Id });
export const SiteSectionGroupParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionGroupId: Id });
export const GroupSectionParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionGroupId: Id, siteSectionId: Id });

/**
 * A path segment of a published URL: letters, digits, `.`, `_` and `-`, starting and ending with a
 * letter or a digit. Checked in code (paths.ts) for a message that names the rule.
 */
export const SitePath = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    "Path segment in the published URL: letters, digits, '.', '_' and '-', starting and ending with a letter or digit; unique within its parent. The old path keeps working as a redirect.",
});

export const Condition = Type.String({
  maxLength: 1024,
  description:
    "Expression deciding whether a visitor sees the item, e.g. `visitor.claims.unsigned.beta === true`; checked when written (a syntax error is a 400 with its position). An empty string removes it.",
});
export const Icon = Type.String({ maxLength: 50, description: "Name of an icon, e.g. `gear`" });

const Urls = Type.Object({ published: Type.Optional(Type.String({ description: "Only when the site is published" })) });

/** A site space (`SiteSpace`): a space shown on a site, at the root or in a section. */
export const SiteSpaceSchema = Type.Object({
  object: Type.Literal("site-space"),
  id: Type.String(),
  path: Type.String(),
  section: Type.Optional(Type.String({ description: "Id of the containing section" })),
  space: SpaceSchema,
  title: Type.String({ description: "The space's title" }),
  default: Type.Boolean({ description: "Whether this is the default site space of its section (or of the site's root)" }),
  condition: Type.Optional(Type.String()),
  urls: Urls,
});
export type SiteSpaceResponse = Static<typeof SiteSpaceSchema>;

/** A section (`SiteSection`): a tab of the site, holding one or more site spaces. */
export const SiteSectionSchema = Type.Object({
  object: Type.Literal("site-section"),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  default: Type.Boolean({ description: "Whether this is the site's home section" }),
  path: Type.String(),
  condition: Type.Optional(Type.String()),
  sectionGroup: Type.Optional(Type.String({ description: "Id of the containing section group" })),
  siteSpaces: Type.Array(SiteSpaceSchema),
  urls: Urls,
  icon: Type.Optional(Type.String()),
});
export type SiteSectionResponse = Static<typeof SiteSectionSchema>;

/** A group nested in a group: the same shape as SiteSectionGroup (serialized as is). */
const NestedGroup = Type.Object(
  { object: Type.Literal("site-section-group"), id: Type.String() },
  { additionalProperties: true, description: "A nested SiteSectionGroup" },
);

/** A section group (`SiteSectionGroup`): a dropdown of sections and groups; groups nest. */
export const SiteSectionGroupSchema = Type.Object({
  object: Type.Literal("site-section-group"),
  id: Type.String(),
  title: Type.String(),
  icon: Type.Optional(Type.String()),
  sectionGroup: Type.Optional(Type.String({ description: "Id of the parent group" })),
  sections: Type.Array(SiteSectionSchema, { description: "Deprecated: the sections directly in the group; use `children`" }),
  children: Type.Array(Type.Union([SiteSectionSchema, NestedGroup]), { description: "Sections and groups in the group, in order" }),
});
export type SiteSectionGroupResponse = Static<typeof SiteSectionGroupSchema>;

/** `SiteStructure`: sections and groups, or site spaces when the site has no sections. */
export const SiteStructureSchema = Type.Union([
  Type.Object({ type: Type.Literal("sections"), structure: Type.Array(Type.Union([SiteSectionSchema, SiteSectionGroupSchema])) }),
  Type.Object({ type: Type.Literal("siteSpaces"), structure: Type.Array(SiteSpaceSchema) }),
]);
export type SiteStructureResponse = Static<typeof SiteStructureSchema>;

export const ListSiteSpacesQuery = Type.Object({
  ...ListQuery.properties,
  shareKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Key of an active share link, for published URLs" })),
  default: Type.Optional(Type.Boolean({ description: "true: only default site spaces; false: only the others" })),
});
export const ListWithShareKeyQuery = Type.Object({
  ...ListQuery.properties,
  shareKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Key of an active share link, for published URLs" })),
});

export const AddSiteSpaceBody = Type.Object({
  spaceId: ObjectId,
  sectionId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Section to add the space to; absent: the default section, or the root of a site without sections",
    }),
  ),
});

export const UpdateSiteSpaceBody = Type.Object({
  path: Type.Optional(SitePath),
  condition: Type.Optional(Type.Union([Condition, Type.Null()], { description: "null removes the condition" })),
  spaceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Space the site space shows" })),
});

const SiteSpacePointer = Type.Object({ type: Type.Literal("site-space"), siteSpace: ObjectId });
const SiteSectionPointer = Type.Object({ type: Type.Literal("site-section"), siteSection: ObjectId });
const GroupPointer = Type.Object({ type: Type.Enum(["site-section", "site-section-group"]), id: ObjectId });

export const MoveSiteSpaceBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(SiteSpacePointer), after: Type.Optional(SiteSpacePointer) })),
});
export const MoveSiteSectionBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(SiteSectionPointer), after: Type.Optional(SiteSectionPointer) })),
});
export const MoveSiteSectionGroupBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(GroupPointer), after: Type.Optional(GroupPointer) })),
});

export const StructureItemType = Type.Enum(["site-space", "site-section", "site-section-group"]);
const StructurePointer = Type.Object({ type: StructureItemType, id: ObjectId });
export const SortStructureBody = Type.Object({
  item: StructurePointer,
  position: Type.Object({ before: Type.Optional(StructurePointer), after: Type.Optional(StructurePointer) }),
});

export const AddSectionBody = Type.Object({
  spaceId: ObjectId,
  title: Type.Optional(Type.Union([Type.String({ minLength: 2, maxLength: 128 }), Type.Null()])),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
});

export const UpdateSectionBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 2, maxLength: 128 })),
  path: Type.Optional(SitePath),
  defaultSiteSpace: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "A site space of this section" })),
  condition: Type.Optional(Type.Union([Condition, Type.Null()], { description: "null removes the condition" })),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
});
export type UpdateSectionValue = Static<typeof UpdateSectionBody>;

export const AddSectionGroupBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 100 }),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  sections: Type.Optional(Type.Array(ObjectId, { maxItems: 100, description: "Sections to move into the new group, in order" })),
  parent: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Parent group; absent: the site's root" })),
});

export const UpdateSectionGroupBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
});

export const AddSectionToGroupBody = Type.Object({ sectionId: ObjectId });
