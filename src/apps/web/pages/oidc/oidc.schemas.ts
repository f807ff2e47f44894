import Type from "typebox";

export const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

export const StartQuery = Type.Object({
  /** Where a member goes after signing in (a path of this host). */
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  /** A published site's visitor sign-in: the site, and the page asked for from the site's root. */
  site: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  location: Type.Optional(Type.String({ maxLength: 2000 })),
});

/** The provider's answer: a code and the state, or an error (RFC 6749 4.1.2). */
export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
  session_state: Type.Optional(Type.String({ maxLength: 512 })),
});
