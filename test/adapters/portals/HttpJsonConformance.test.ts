import { makePortalNetwork } from "../../support/conformance/PortalNetwork.ts"
import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixtureFor } from "./fixtures/http-json.ts"

// The kit once per paging style, on portals in process: each must stream the whole portal, exactly
// once. The wire itself (redirects, timeouts, sizes, refused connections) is HttpJsonConnector.test.ts's.
for (const style of ["page", "offset", "cursor", "link"] as const) {
  describeConformance(fixtureFor(style, makePortalNetwork()), style)
}
