import Type, { type Static } from "typebox";
import { Id, RichDocument, Timestamp } from "../../http/schemas.js";
import { Language } from "../spaces/spaces.schemas.js";

export const TranslationParams = Type.Object({ organizationId: Id, translationId: Id });

/** `TranslationStatus`: a run is queued (`pending`), in progress (`running`), or none is (`completed`). */
export const TRANSLATION_STATUSES = ["pending", "running", "completed"] as const;
export const TranslationStatus = Type.Enum([...TRANSLATION_STATUSES]);
export type TranslationStatusValue = Static<typeof TranslationStatus>;

/** `TranslationSource`. */
export const TranslationSource = Type.Object({
  space: Id,
  language: Language,
});

export const TranslationPermissions = Type.Object({
  view: Type.Boolean({ description: "Whether the user can view the translation" }),
  edit: Type.Boolean({ description: "Whether the user can change, run or delete the translation" }),
});
export type TranslationPermissionsValue = Static<typeof TranslationPermissions>;

const Count = Type.Integer({ minimum: 0 });

/** `Translation`, plus `failure` when the latest run failed for good (Quire's addition). */
export const TranslationSchema = Type.Object({
  object: Type.Literal("translation"),
  id: Type.String(),
  status: TranslationStatus,
  source: TranslationSource,
  language: Language,
  instructions: RichDocument,
  result: Type.Object({
    space: Type.String({ description: "The space holding the translated copy" }),
    revision: Type.String({ description: "The revision the latest run wrote (at first, the space's first revision)" }),
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  stats: Type.Object({
    runs: Count,
    totalWords: Count,
    totalPages: Count,
    totalDuration: Type.Integer({ minimum: 0, description: "Seconds" }),
    latestRunDuration: Type.Integer({ minimum: 0, description: "Seconds" }),
    latestPages: Count,
    latestWords: Count,
  }),
  failure: Type.Optional(
    Type.Object(
      { message: Type.String(), at: Timestamp },
      { description: "Why the latest run failed (after its retries); absent once a run succeeds" },
    ),
  ),
  permissions: TranslationPermissions,
  urls: Type.Object({ location: Type.String({ format: "uri" }) }),
});
export type TranslationResponse = Static<typeof TranslationSchema>;

export const CreateTranslationBody = Type.Object({
  language: Language,
  source: TranslationSource,
  instructions: Type.Optional(RichDocument),
});
export type CreateTranslationValue = Static<typeof CreateTranslationBody>;

export const UpdateTranslationBody = Type.Object({ instructions: RichDocument });
