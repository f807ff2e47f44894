import Type from "typebox";

export const UserParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) });

export const UpdateUserBody = Type.Object(
  {
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    photoURL: Type.Optional(Type.Union([Type.String({ format: "uri", maxLength: 2048 }), Type.Null()])),
  },
  { minProperties: 1 },
);
