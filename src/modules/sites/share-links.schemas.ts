import Type, { type Static } from "typebox";
import { Id, Timestamp } from "../../http/schemas.js";

export const ShareLinkParams = Type.Object({ organizationId: Id, siteId: Id, shareLinkId: Id });

const ShareLinkName = Type.String({ maxLength: 50, description: "Name of the share link" });

/** A share link of a site (`ShareLink`). */
export const ShareLinkSchema = Type.Object({
  object: Type.Literal("share-link"),
  id: Type.String(),
  createdAt: Timestamp,
  name: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  urls: Type.Object({
    published: Type.Optional(
      Type.String({
        description:
          "The link to share: the site's address with the link's secret key as first path segment. Shown only to callers who may manage the site's share links.",
      }),
    ),
  }),
});
export type ShareLinkResponse = Static<typeof ShareLinkSchema>;

export const CreateShareLinkBody = Type.Object({ name: ShareLinkName });

export const UpdateShareLinkBody = Type.Object(
  {
    active: Type.Optional(Type.Boolean({ description: "false revokes the link: its URL stops working" })),
    name: Type.Optional(ShareLinkName),
  },
  { minProperties: 1 },
);
