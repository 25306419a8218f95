import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixture } from "./fixtures/cxml.ts"

describeConformance(fixture)
