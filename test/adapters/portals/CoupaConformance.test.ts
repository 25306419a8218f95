import { describeConformance } from "../../../adapters/portals/conformance/vitest.ts"
import { fixture } from "../../../adapters/portals/coupa/fixture.ts"

describeConformance(fixture)
