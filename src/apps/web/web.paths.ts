/** Addresses of the app's pages: the same paths the API's `urls.app` names. */

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

export const appPath = {
  org: (org: string) => `/app/o/${enc(org)}`,
  collection: (org: string, id: string) => `/app/o/${enc(org)}/c/${enc(id)}`,
  space: (org: string, space: string) => `/app/o/${enc(org)}/s/${enc(space)}`,
  page: (org: string, space: string, page: string) => `/app/o/${enc(org)}/s/${enc(space)}/p/${enc(page)}`,
  revision: (org: string, space: string, id: string) => `/app/o/${enc(org)}/s/${enc(space)}/revisions/${enc(id)}`,
  changes: (org: string, space: string) => `/app/o/${enc(org)}/s/${enc(space)}/~/changes`,
  changeRequest: (org: string, space: string, number: number) => `/app/o/${enc(org)}/s/${enc(space)}/~/changes/${number}`,
  site: (org: string, id: string) => `/app/o/${enc(org)}/sites/${enc(id)}`,
  openapi: (org: string, slug: string) => `/app/o/${enc(org)}/openapi/${enc(slug)}`,
  topic: (org: string, id: string) => `/app/o/${enc(org)}/agent/topics/${enc(id)}`,
};
