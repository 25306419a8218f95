import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixture } from "./fixtures/peppol.ts"

describeConformance(fixture)
