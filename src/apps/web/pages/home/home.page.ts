/** The signed-in home: who is signed in, their organizations (with each one's SSO rule applied), and their API tokens. */
import { listOrganizationsOfUser } from "../../../../modules/organizations/organizations.queries.js";
import { webAccessAllowed } from "../../../../modules/saml/saml.policy.js";
import { page } from "../../layout.views.js";
import { memberHandler } from "../../web.kinds.js";
import { sendHtml } from "../../web.steps.js";
import { singleSignOns } from "../saml/saml.steps.js";
import { type HomeOrganization, homeBody } from "./home.views.js";

export const homePage = memberHandler({}, async (_request, reply, { deps, signedIn, csrf }) => {
  const { user, via } = signedIn;
  const orgs: HomeOrganization[] = [];
  for (const org of (await listOrganizationsOfUser(deps.db, user.id, { limit: 1000 })).rows) {
    const allowed = webAccessAllowed(org, { role: org.memberRole }, via);
    // Where the member is kept out, the organization's own single sign-on lets them in.
    const signIns = allowed ? [] : await singleSignOns(deps, org.id, "/app");
    orgs.push({ id: org.id, title: org.title, role: org.memberRole, sso: org.sso === 1, allowed, signIns });
  }
  const body = homeBody({ displayName: user.displayName, email: user.email, via: via.method, orgs });
  return sendHtml(reply, 200, page("Home", body, { user, csrf: csrf() }));
});
