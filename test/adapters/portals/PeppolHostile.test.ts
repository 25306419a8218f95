/**
 * The peppol connector against inboxes built to hurt: a 300 KB attribute, nesting past the
 * limit, a billion-laughs entity. Each must end quickly, in bounded memory, with a failure or a
 * quarantine that says where, while the inbox's other invoices still apply.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { xmlLimits } from "../../../adapters/portals/cxml/Xml.ts"
import { connector } from "../../../adapters/portals/peppol/PeppolConnector.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { invoiceDocument } from "./fixtures/peppol.ts"

const samples = sampleDocuments(4, [["sent", "PENDING"]], { decimalSeparator: ".", groupsThousands: false }, true)

const inboxWith = (files: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const inbox = yield* temporaryDirectory("peppol-hostile")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(inbox, name), content)))
    )
    return inbox
  })

const timedFetch = (inbox: string) =>
  Effect.gen(function* () {
    const started = performance.now()
    const result = yield* Effect.result(Stream.runCollect(connector.fetch(pairToFetch({ inbox }))))
    return { result, seconds: (performance.now() - started) / 1000 }
  })

describe("the peppol connector on hostile inboxes", () => {
  it.effect("a 300 KB attribute quarantines its document, naming it; the other invoices apply", () =>
    Effect.gen(function* () {
      const hostile = invoiceDocument(samples.at(1)).replace(
        "<cbc:InvoiceTypeCode>",
        `<cbc:InvoiceTypeCode name="${"x".repeat(300_000)}">`
      )
      const inbox = yield* inboxWith({ "a.xml": invoiceDocument(samples.at(0)), "b.xml": hostile })
      const { result, seconds } = yield* timedFetch(inbox)
      assert.isTrue(result._tag === "Success")
      if (result._tag !== "Success") return
      assert.deepStrictEqual(
        result.success.map((document) => [document.documentKey, document.unreadable?.length ?? 0]),
        [
          [samples.at(0).key, 0],
          ["b.xml document 1", 1]
        ]
      )
      assert.match(
        result.success[1]!.unreadable![0]!,
        new RegExp(
          `attribute name of <cbc:InvoiceTypeCode> is over the limit of ${xmlLimits.elementText.toLocaleString("en")}`
        )
      )
      assert.isBelow(seconds, 5)
    })
  )

  it.effect("nesting past the limit abandons the rest of that file, reported; the other files apply", () =>
    Effect.gen(function* () {
      const depth = xmlLimits.depth + 50
      const deep = invoiceDocument(samples.at(1)).replace(
        "<cbc:Note>",
        `${"<cac:X>".repeat(depth)}${"</cac:X>".repeat(depth)}<cbc:Note>`
      )
      const inbox = yield* inboxWith({ "a.xml": invoiceDocument(samples.at(0)), "b.xml": deep })
      const { result, seconds } = yield* timedFetch(inbox)
      assert.isTrue(result._tag === "Success")
      if (result._tag !== "Success") return
      assert.deepStrictEqual(
        result.success.map((document) => document.documentKey),
        [samples.at(0).key, "b.xml document 1"]
      )
      assert.match(result.success[1]!.unreadable![0]!, /nested more than 256 deep/)
      assert.isBelow(seconds, 5)
    })
  )

  it.effect(
    "an entity declared in the DOCTYPE is never expanded: a billion-laughs document fails, small and fast",
    () =>
      Effect.gen(function* () {
        const entities = Array.from({ length: 9 }, (_, i) =>
          i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`
        ).join("")
        const bomb = `<?xml version="1.0"?><!DOCTYPE Invoice [${entities}]>${invoiceDocument(samples.at(1))
          .replace(/^<\?xml[^>]*>\s*/, "")
          .replace("<cbc:BuyerReference>0150abc", "<cbc:BuyerReference>&lol8;")}`
        const inbox = yield* inboxWith({ "bomb.xml": bomb })
        const before = process.memoryUsage().rss
        const { result, seconds } = yield* timedFetch(inbox)
        assert.isTrue(result._tag === "Failure" && !result.failure.retryable)
        if (result._tag !== "Failure") return
        assert.match(result.failure.message, /^bomb\.xml is not well-formed XML at line \d+, column \d+: /)
        assert.isBelow(seconds, 2)
        assert.isBelow(process.memoryUsage().rss - before, 64 * 1024 * 1024)
      })
  )
})
