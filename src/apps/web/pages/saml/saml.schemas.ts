import Type from "typebox";

export const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

/** A single logout message by the HTTP-Redirect binding: a request or a response, signed in the query. */
export const SloQuery = Type.Object({
  SAMLRequest: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
  SAMLResponse: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
  RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
  SigAlg: Type.Optional(Type.String({ maxLength: 200 })),
  Signature: Type.Optional(Type.String({ maxLength: 4000 })),
});
