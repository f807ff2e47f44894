/** Builds every `urls.*` address from QUIRE_PUBLIC_URL, so the addresses follow the deployment. */
export class Urls {
  constructor(readonly base: string) {}

  /** Address of an API resource: `{base}/v1{path}`. */
  api(path: string): string {
    return `${this.base}/v1${path}`;
  }

  /** Address of a page of the web application for an object. */
  app(path: string): string {
    return `${this.base}/app${path}`;
  }

  /**
   * Address of a published docs site (`{base}/s/{basename}`), with path segments after it (a share
   * key, a section's path, a variant's path). Empty segments are left out.
   */
  site(basename: string, ...segments: (string | null | undefined)[]): string {
    const rest = segments.filter((s): s is string => !!s).map((s) => `/${encodeURIComponent(s)}`);
    return `${this.base}/s/${encodeURIComponent(basename)}${rest.join("")}`;
  }

  /** Address of published content. */
  published(path: string): string {
    return `${this.base}/docs${path}`;
  }
}
