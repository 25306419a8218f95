/**
 * The fr-lifecycle connector against inboxes built to hurt: a 300 KB attribute, nesting past the
 * limit, a billion-laughs entity. Each must end quickly, in bounded memory, with a failure or a
 * quarantine that says where, while the inbox's other invoices still apply.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { xmlLimits } from "../../../adapters/portals/cxml/Xml.ts"
import { connector } from "../../../adapters/portals/fr-lifecycle/FrLifecycleConnector.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { cdarDocument, ciiInvoiceDocument } from "./fixtures/fr-lifecycle.ts"

const samples = sampleDocuments(4, [["submitted", "PENDING"]], { decimalSeparator: ".", groupsThousands: false }, true)

const inboxWith = (files: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const inbox = yield* temporaryDirectory("fr-lifecycle-hostile")
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

const approved = (index: number) =>
  cdarDocument(
    [{ invoiceId: samples.at(index).key, invoiceDate: samples.at(index).receivableDate, code: "205" }],
    "20261120100000"
  )

describe("the fr-lifecycle connector on hostile inboxes", () => {
  it.effect("a 300 KB attribute in a CDAR message quarantines it, naming it; the invoices apply", () =>
    Effect.gen(function* () {
      const hostile = approved(1).replace(
        "<ram:ProcessConditionCode>",
        `<ram:ProcessConditionCode listID="${"x".repeat(300_000)}">`
      )
      const inbox = yield* inboxWith({
        "a.xml": ciiInvoiceDocument(samples.at(0)),
        "b.xml": ciiInvoiceDocument(samples.at(1)),
        "c.xml": approved(0),
        "d.xml": hostile
      })
      const { result, seconds } = yield* timedFetch(inbox)
      assert.isTrue(result._tag === "Success")
      if (result._tag !== "Success") return
      assert.deepStrictEqual(
        result.success.map((document) => [
          document.documentKey,
          document.portalStatus,
          document.unreadable?.length ?? 0
        ]),
        [
          [samples.at(0).key, "205 Approved", 0],
          [samples.at(1).key, "submitted", 0],
          ["d.xml document 1", "", 1]
        ]
      )
      assert.match(
        result.success[2]!.unreadable![0]!,
        new RegExp(
          `attribute listID of <ram:ProcessConditionCode> is over the limit of ${xmlLimits.elementText.toLocaleString("en")}`
        )
      )
      assert.isBelow(seconds, 5)
    })
  )

  it.effect("nesting past the limit abandons the rest of that file, reported; the other files apply", () =>
    Effect.gen(function* () {
      const depth = xmlLimits.depth + 50
      const deep = ciiInvoiceDocument(samples.at(1)).replace(
        "<ram:IncludedNote>",
        `${"<ram:X>".repeat(depth)}${"</ram:X>".repeat(depth)}<ram:IncludedNote>`
      )
      const inbox = yield* inboxWith({ "a.xml": ciiInvoiceDocument(samples.at(0)), "b.xml": deep })
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
        const bomb = `<?xml version="1.0"?><!DOCTYPE rsm:CrossDomainAcknowledgementAndResponse [${entities}]>${approved(
          1
        )
          .replace(/^<\?xml[^>]*>\s*/, "")
          .replace("<ram:Name>Cycle de vie", "<ram:Name>&lol8;")}`
        const inbox = yield* inboxWith({ "invoice.xml": ciiInvoiceDocument(samples.at(1)), "bomb.xml": bomb })
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
