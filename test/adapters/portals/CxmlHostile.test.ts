/**
 * The cxml connector against inboxes built to hurt: hostile markup, entity bombs, files cut
 * short or over the limits, FIFOs, other encodings. Each must end quickly, in bounded memory,
 * with a failure or a quarantine that says where, never a document silently lost.
 */
import { execFileSync } from "node:child_process"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import { utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Stream } from "effect"
import { connector, stillWritingMinutes } from "../../../adapters/portals/cxml/CxmlConnector.ts"
import { xmlLimits } from "../../../adapters/portals/cxml/Xml.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { invoiceDocument, statusDocument } from "./fixtures/cxml.ts"

const samples = sampleDocuments(20, [["submitted", "PENDING"]], { decimalSeparator: ".", groupsThousands: false }, true)
const now = DateTime.toEpochMillis(pairToFetch({}).now)
// The line the second of two documents one after another starts on.
const secondLine = invoiceDocument(samples.at(0)).split("\n").length

const inboxWith = (files: Readonly<Record<string, string | Buffer>>) =>
  Effect.gen(function* () {
    const inbox = yield* temporaryDirectory("cxml-hostile")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(inbox, name), content)))
    )
    return inbox
  })

const fetchFrom = (inbox: string) => Stream.runCollect(connector.fetch(pairToFetch({ inbox })))

/** An effect's outcome, its duration, and the longest the event loop was held meanwhile (a 10 ms timer's worst lateness). */
const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const started = performance.now()
    let last = started
    let held = 0
    const timer = setInterval(() => {
      const tick = performance.now()
      held = Math.max(held, tick - last - 10)
      last = tick
    }, 10)
    const result = yield* Effect.result(effect).pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
    held = Math.max(held, performance.now() - last - 10)
    return { result, seconds: (performance.now() - started) / 1000, heldMs: held }
  })

describe("the cxml connector on hostile inboxes", () => {
  it.effect(
    "a tag with a 150 KB run of characters and no = fails at once as not well-formed, naming file and place",
    () =>
      Effect.gen(function* () {
        const hostile = `<cXML><Request><InvoiceDetailRequest><InvoiceDetailRequestHeader ${"a".repeat(150_000)}></InvoiceDetailRequestHeader></InvoiceDetailRequest></Request></cXML>`
        const inbox = yield* inboxWith({ "hostile.xml": hostile })
        const { result, seconds, heldMs } = yield* timed(fetchFrom(inbox))
        assert.isTrue(result._tag === "Failure")
        if (result._tag !== "Failure") return
        assert.isFalse(result.failure.retryable)
        assert.match(result.failure.message, /^hostile\.xml is not well-formed XML at line 1, column \d+: /)
        // The linear reader takes milliseconds; the quadratic one took 14 s for this file, and
        // held the event loop (every other sync, every request) for all of it.
        assert.isBelow(seconds, 2)
        assert.isBelow(heldMs, 1_000)
      })
  )

  it.effect(
    "an entity declared in the DOCTYPE is never expanded: a billion-laughs document fails, small and fast",
    () =>
      Effect.gen(function* () {
        const entities = Array.from({ length: 9 }, (_, i) =>
          i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`
        ).join("")
        const bomb = `<?xml version="1.0"?><!DOCTYPE cXML [${entities}]><cXML><Request><StatusUpdateRequest><InvoiceStatus type="&lol8;"><InvoiceIDInfo invoiceID="1"/></InvoiceStatus></StatusUpdateRequest></Request></cXML>`
        const inbox = yield* inboxWith({ "bomb.xml": bomb })
        const before = process.memoryUsage().rss
        const { result, seconds } = yield* timed(fetchFrom(inbox))
        assert.isTrue(result._tag === "Failure" && !result.failure.retryable)
        if (result._tag === "Failure")
          assert.match(result.failure.message, /bomb\.xml is not well-formed XML at line 1.*undefined entity/)
        assert.isBelow(seconds, 1)
        assert.isBelow(process.memoryUsage().rss - before, 64 * 2 ** 20)
      })
  )

  it.effect(
    `a file cut short is retried while written to in the last ${stillWritingMinutes} minutes, and fails for good after`,
    () =>
      Effect.gen(function* () {
        const cut = invoiceDocument(samples.at(0)) + invoiceDocument(samples.at(1)).slice(0, 400)
        const inbox = yield* inboxWith({ "arriving.xml": cut })
        const at = (millis: number) =>
          Effect.promise(() => utimes(join(inbox, "arriving.xml"), millis / 1000, millis / 1000))
        yield* at(now - 60_000)
        const fresh = yield* Effect.flip(fetchFrom(inbox))
        assert.isTrue(fresh.retryable)
        assert.match(
          fresh.message,
          new RegExp(`^arriving\\.xml ends in an incomplete cXML document \\(from line ${secondLine}: `)
        )
        yield* at(now - (stillWritingMinutes + 1) * 60_000)
        const stale = yield* Effect.flip(fetchFrom(inbox))
        assert.isFalse(stale.retryable)
        assert.match(stale.message, /unchanged for more than 10 minutes/)
      })
  )

  it.effect(
    "a 17 MB file without </cXML> is quarantined at the document limit, and the rest of the inbox applies",
    () =>
      Effect.gen(function* () {
        const inbox = yield* inboxWith({ "a-good.xml": invoiceDocument(samples.at(0)) })
        const out = createWriteStream(join(inbox, "b-endless.xml"))
        out.write('<?xml version="1.0"?>\n<cXML><Request><InvoiceDetailRequest><InvoiceDetailOrder>\n')
        const line = `<InvoiceDetailItem quantity="1"><UnitPrice><Money currency="USD">1.00</Money></UnitPrice></InvoiceDetailItem>\n`
        for (let written = 0; written < 17 * 2 ** 20; written += line.length) {
          if (!out.write(line)) yield* Effect.promise(() => once(out, "drain"))
        }
        out.end()
        yield* Effect.promise(() => once(out, "finish"))
        const { result, seconds, heldMs } = yield* timed(fetchFrom(inbox))
        // Read a chunk at a time, with a turn of the event loop between chunks.
        assert.isBelow(heldMs, 1_000)
        assert.isTrue(result._tag === "Success")
        if (result._tag !== "Success") return
        assert.deepStrictEqual(
          result.success.map((d) => [d.documentKey, d.unreadable ?? []]),
          [
            [samples.at(0).key, []],
            [
              "b-endless.xml document 1",
              [
                `the cXML document from line 1 was not read, nor anything after it in b-endless.xml: it is over the limit of ${xmlLimits.document.toLocaleString("en")} characters`
              ]
            ]
          ]
        )
        assert.isBelow(seconds, 20)
      })
  )

  it.effect("an invoice or a status update without an invoiceID is reported, not dropped", () =>
    Effect.gen(function* () {
      const keyless = invoiceDocument({ ...samples.at(2), key: "" })
      const inbox = yield* inboxWith({
        "1.xml": invoiceDocument(samples.at(1)) + keyless,
        "2.xml": statusDocument("", "2026-11-01", "paid", "2026-11-20T10:00:00Z")
      })
      const fetched = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        fetched.map((d) => [d.documentKey, d.unreadable ?? []]),
        [
          [samples.at(1).key, []],
          [
            "1.xml document 2",
            [`an InvoiceDetailRequest without an invoiceID (the cXML document from line ${secondLine})`]
          ],
          ["2.xml document 1", ["an InvoiceStatus without an invoiceID (the cXML document from line 1)"]]
        ]
      )
    })
  )

  it.effect("an element's text over the limit quarantines its document only", () =>
    Effect.gen(function* () {
      const long = invoiceDocument(samples.at(3)).replace(
        "<Comments>",
        `<Comments>${"x".repeat(xmlLimits.elementText + 1)}`
      )
      const inbox = yield* inboxWith({ "1.xml": long + invoiceDocument(samples.at(4)) })
      const fetched = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        fetched.map((d) => [d.documentKey, d.unreadable ?? []]),
        [
          [
            "1.xml document 1",
            [
              "the cXML document from line 1 was not read: the text of <Comments> is over the limit of 65,536 characters"
            ]
          ],
          [samples.at(4).key, []]
        ]
      )
    })
  )

  it.effect("a FIFO in the inbox is reported as not a regular file instead of blocking the sync", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({ "1.xml": invoiceDocument(samples.at(5)) })
      execFileSync("mkfifo", [join(inbox, "2-pipe.xml")])
      const fetched = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        fetched.map((d) => [d.documentKey, d.unreadable ?? []]),
        [
          [samples.at(5).key, []],
          ["2-pipe.xml", ["2-pipe.xml is a named pipe (FIFO): only regular files are read"]]
        ]
      )
    })
  )
})

describe("the cxml connector's encodings", () => {
  const withComment = (comment: string) =>
    invoiceDocument(samples.at(6)).replace(
      "</InvoiceDetailRequestHeader>",
      `<Extrinsic name="note">${comment}</Extrinsic></InvoiceDetailRequestHeader>`
    )
  const bom = (name: "utf16le" | "utf16be", text: string) => {
    const le = Buffer.from(`\uFEFF${text}`, "utf16le")
    return name === "utf16le" ? le : Buffer.from(le).swap16()
  }

  it.effect("reads UTF-16 with a byte-order mark, LE or BE, and Latin-1 declared in the XML declaration", () =>
    Effect.gen(function* () {
      const latin = withComment("Müller").replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
      const inbox = yield* inboxWith({
        "le.xml": bom("utf16le", invoiceDocument(samples.at(7))),
        "be.xml": bom("utf16be", invoiceDocument(samples.at(8))),
        "latin.xml": Buffer.from(latin, "latin1")
      })
      const fetched = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        fetched.map((d) => d.documentKey).sort(),
        [samples.at(6).key, samples.at(7).key, samples.at(8).key].sort()
      )
      assert.isTrue(fetched.every((d) => d.unreadable === undefined && !d.currency.includes("\uFFFD")))
    })
  )

  it.effect("bytes that are not UTF-8 in a file that says nothing fail for good, naming the file and the byte", () =>
    Effect.gen(function* () {
      const text = withComment("Müller")
      const inbox = yield* inboxWith({ "latin.xml": Buffer.from(text, "latin1") })
      const failure = yield* Effect.flip(fetchFrom(inbox))
      assert.isFalse(failure.retryable)
      assert.strictEqual(
        failure.message,
        `latin.xml is not valid utf-8 at byte ${Buffer.byteLength(text.slice(0, text.indexOf("ü")), "latin1")}: cXML is read as UTF-8 unless a byte-order mark or the XML declaration's encoding says otherwise`
      )
    })
  )
})
