import { makePortalNetwork } from "../../support/conformance/PortalNetwork.ts"
import { describeConformance } from "../../support/conformance/vitest.ts"
import { fixtureOn } from "./fixtures/coupa.ts"

describeConformance(fixtureOn(makePortalNetwork()))
