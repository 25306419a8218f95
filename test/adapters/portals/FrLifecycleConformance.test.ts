import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixture } from "./fixtures/fr-lifecycle.ts"

describeConformance(fixture)
