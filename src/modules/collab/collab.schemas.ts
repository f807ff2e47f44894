import Type from "typebox";

export const CollabTokenQuery = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 300, description: "change-requests/<changeRequestId>/pages/<pageId>" }),
});

export const CollabTokenBody = Type.Object({ token: Type.String() });
