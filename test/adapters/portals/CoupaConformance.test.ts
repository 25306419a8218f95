import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixture } from "./fixtures/coupa.ts"

describeConformance(fixture)
