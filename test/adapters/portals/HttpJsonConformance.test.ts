import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixtureFor } from "./fixtures/http-json.ts"

// The kit once per paging style: each must stream the whole portal, exactly once.
for (const style of ["page", "offset", "cursor", "link"] as const) describeConformance(fixtureFor(style), style)
