/**
 * The connectors' streaming benchmark (`npm run bench:connectors`): every bundled connector, on
 * its conformance fixture's portal, streams 100,000 documents (BENCH_DOCUMENTS), and the heap the
 * fetch retains is measured after a forced collection at every tenth. The conformance kit in
 * `npm test` streams 10,000 and bounds the growth a document; this run holds the whole stream to
 * the kit's bound in all (`streamingHeapBoundMiB`), which a connector that reads its whole input
 * before giving the first document passes only at small sizes. Portals are in process (files in a
 * temporary directory, HTTP portals on an in-process network), so the figures are the connectors'.
 * BENCH_SMOKE=1 streams 2,000 documents a connector.
 */
import { Effect } from "effect"
import { fixtureOn as coupaOn } from "../../test/adapters/portals/fixtures/coupa.ts"
import { fixture as cxml } from "../../test/adapters/portals/fixtures/cxml.ts"
import { fixture as file } from "../../test/adapters/portals/fixtures/file.ts"
import { fixtureFor as httpJsonFor } from "../../test/adapters/portals/fixtures/http-json.ts"
import { fixture as peppol } from "../../test/adapters/portals/fixtures/peppol.ts"
import {
  type ConformanceFixture,
  measureStreaming,
  retainedBytesPerDocument,
  streamingHeapBoundMiB
} from "../../test/support/conformance/Conformance.ts"
import { makePortalNetwork } from "../../test/support/conformance/PortalNetwork.ts"
import { option } from "../support/Smoke.ts"

const documents = option("BENCH_DOCUMENTS", 100_000, 2_000)

const connectors: ReadonlyArray<readonly [string, ConformanceFixture]> = [
  ["file", file],
  ["cxml", cxml],
  ["peppol", peppol],
  ["coupa", coupaOn(makePortalNetwork())],
  ...(["page", "offset", "cursor", "link"] as const).map(
    (style) => [`http-json (${style})`, httpJsonFor(style, makePortalNetwork())] as const
  )
]

const lines: Array<string> = [
  `${documents.toLocaleString("en")} documents a connector; bounds: ${streamingHeapBoundMiB} MiB retained in all, ${retainedBytesPerDocument} bytes a document past the first fifth`,
  "",
  "| connector | s | documents/s | each once | peak retained MiB | bytes a document | within bounds |",
  "|---|---|---|---|---|---|---|"
]
for (const [name, fixture] of connectors) {
  const measured = await Effect.runPromise(Effect.scoped(measureStreaming(fixture, documents)))
  const within =
    measured.eachOnce &&
    measured.peakMiB <= streamingHeapBoundMiB &&
    measured.bytesPerDocument <= retainedBytesPerDocument
  lines.push(
    `| ${name} | ${measured.seconds.toFixed(1)} | ${Math.round(measured.documents / measured.seconds).toLocaleString("en")} | ${measured.eachOnce ? "yes" : "no"} | ${measured.peakMiB.toFixed(1)} | ${measured.bytesPerDocument.toFixed(0)} | ${within ? "yes" : "no"} |`
  )
}
console.log(lines.join("\n"))
