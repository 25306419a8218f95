import { describeConformance } from "../../../adapters/portals/conformance/vitest.ts"
import { fixture } from "../../../adapters/portals/file/fixture.ts"

describeConformance(fixture)
