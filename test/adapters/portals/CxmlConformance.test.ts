import { describeConformance } from "../../../adapters/portals/conformance/vitest.ts"
import { fixture } from "../../../adapters/portals/cxml/fixture.ts"

describeConformance(fixture)
