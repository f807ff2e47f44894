// oidc-provider ships no types; the tests use it through the few members below.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface GrantClass {
    new (init: { clientId: string; accountId: string }): GrantInstance;
  }
  export interface KoaContextWithOIDC {
    oidc: { provider: { Grant: GrantClass }; client?: { clientId: string }; session?: { accountId?: string } };
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
