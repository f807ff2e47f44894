import Type from "typebox";
import { Timestamp } from "../../http/schemas.js";

const GitInfo = Type.Object({
  provider: Type.Optional(Type.Enum(["github", "gitlab"])),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
});

const common = {
  url: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: "Repository URL; may carry basic-auth credentials, which are never stored in clear",
  }),
  ref: Type.String({ minLength: 1, maxLength: 255, description: 'The ref, e.g. "refs/heads/main"' }),
  repoCacheID: Type.Optional(Type.String({ maxLength: 255 })),
  repoTreeURL: Type.Optional(Type.String({ maxLength: 2048 })),
  repoCommitURL: Type.Optional(Type.String({ maxLength: 2048 })),
  repoProjectDirectory: Type.Optional(Type.String({ maxLength: 1024 })),
  timestamp: Type.Optional(Timestamp),
  force: Type.Optional(Type.Boolean()),
  gitInfo: Type.Optional(GitInfo),
};

export const ImportBody = Type.Object({ ...common, standalone: Type.Optional(Type.Boolean()) });
export const ExportBody = Type.Object({ ...common, commitMessage: Type.String({ minLength: 1, maxLength: 10_000 }) });
