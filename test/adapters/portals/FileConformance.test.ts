import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixture } from "./fixtures/file.ts"

describeConformance(fixture)
