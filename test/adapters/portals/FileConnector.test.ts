import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { DateTime, Effect, Stream } from "effect"
import fc from "fast-check"
import { csvReader, parseCsv } from "../../../adapters/portals/file/Csv.ts"
import { connector } from "../../../adapters/portals/file/FileConnector.ts"
import { planPairSync } from "../../../core/receivables/domain/PairSync.ts"
import type { DebtorId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import { pairToFetch, temporaryDirectory } from "../../support/conformance/Conformance.ts"

const pair = (config: unknown) => pairToFetch(config)

const europeanCsv = (directory: string) => ({
  directory,
  format: "csv",
  delimiter: ";",
  decimalSeparator: ",",
  dateOrder: "DMY",
  currency: "EUR",
  columns: {
    documentKey: "Invoice Id",
    amount: "Amount",
    receivableDate: "Invoice Date",
    dueDate: "Due Date",
    status: "Status",
    vendorReceivableId: "Invoice Number"
  }
})

const withDirectory = temporaryDirectory("receivables-file")

describe("CSV", () => {
  it("reads back any table written with quoting", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(",", ";", "\t"),
        fc.array(fc.array(fc.string({ maxLength: 8 }), { minLength: 3, maxLength: 3 }), { maxLength: 6 }),
        (delimiter, rows) => {
          const quote = (cell: string) => `"${cell.replaceAll('"', '""')}"`
          const text = `${["a", "b", "c"].join(delimiter)}\r\n${rows.map((r) => r.map(quote).join(delimiter)).join("\n")}`
          assert.deepStrictEqual(
            parseCsv(text, delimiter),
            rows.map(([a, b, c]) => ({ a: a ?? "", b: b ?? "", c: c ?? "" }))
          )
        }
      )
    ))

  const cut = (text: string, cuts: ReadonlyArray<number>) => {
    const points = [...new Set(cuts.map((point) => point % (text.length + 1)))].sort((a, b) => a - b)
    return [...points, text.length].map((point, i, all) => text.slice(i === 0 ? 0 : all[i - 1], point))
  }
  const readAll = (chunks: ReadonlyArray<string>, delimiter: string, maxRecord?: number) => {
    const reader = csvReader(delimiter, maxRecord)
    return [...chunks.flatMap((chunk) => reader.push(chunk)), ...reader.end()]
  }
  // Any text, well formed or not: quotes anywhere, both line ends, blank lines.
  const anyText = fc
    .array(fc.constantFrom("a", "b", '"', ",", ";", "\r", "\n", "é", " "), { maxLength: 60 })
    .map((chars) => chars.join(""))

  it("reads the same records whatever the chunks the text arrives in, records over the limit included", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(",", ";"),
        anyText,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (delimiter, text, cuts, maxRecord) => {
          assert.deepStrictEqual(readAll(cut(text, cuts), delimiter, maxRecord), readAll([text], delimiter, maxRecord))
        }
      )
    ))

  it("reads every record as csv-parse reads the whole text, where csv-parse accepts it", () =>
    fc.assert(
      fc.property(fc.constantFrom(",", ";"), anyText, fc.array(fc.nat(), { maxLength: 8 }), (delimiter, text, cuts) => {
        let reference: Array<Array<string>>
        try {
          reference = parse(text, {
            delimiter,
            record_delimiter: ["\r\n", "\n", "\r"],
            relax_quotes: true,
            relax_column_count: true,
            skip_empty_lines: true
          })
        } catch {
          return
        }
        const expected = reference.filter((row) => !(row.length === 1 && row[0] === ""))
        assert.deepStrictEqual(readAll(cut(text, cuts), delimiter), expected)
      })
    ))

  it("reports a record over the limit by its size, and reads the records around it", () => {
    const text = 'a,b\r\n1,"over\nthe limit"\r\n2,3\n4,5'
    for (const chunks of [[text], text.split("")]) {
      assert.deepStrictEqual(readAll(chunks, ",", 8), [["a", "b"], { oversize: 18 }, ["2", "3"], ["4", "5"]])
    }
  })

  it("reports a record that is not valid CSV with why, and reads the records before it", () => {
    for (const chunks of [
      ['id,note\n1,"a "quoted" word"\n2,"never closed\n'],
      ['id,note\n1,"a "quoted" wo', 'rd"\n2,"never', " closed\n"]
    ]) {
      assert.deepStrictEqual(readAll(chunks, ","), [
        ["id", "note"],
        ["1", '"a "quoted" word"'],
        { malformed: "the row is not valid CSV: Quote Not Closed: the parsing is finished with an opening quote" }
      ])
    }
  })
})

describe("the file connector", () => {
  it.effect("reads exports in name order, a newer row replacing an older one, other columns as metadata", () =>
    Effect.gen(function* () {
      const dir = yield* withDirectory
      yield* Effect.promise(() =>
        writeFile(
          join(dir, "2026-11-01-export.csv"),
          "Invoice Id;Invoice Number;Amount;Invoice Date;Due Date;Status;Cost Center\n" +
            'A-1;INV 1;"1.234,56";01.10.2026;31.10.2026;Submitted;CC-7\n' +
            "A-2;INV 2;99,5;2.10.2026;;Approved;\n"
        )
      )
      yield* Effect.promise(() =>
        writeFile(
          join(dir, "2026-11-02-export.csv"),
          "Invoice Id;Invoice Number;Amount;Invoice Date;Due Date;Status;Cost Center\n" +
            "A-1;INV 1;1.234,56;01.10.2026;31.10.2026;Paid;CC-7\n" +
            "A-3;INV 3;twelve;05.10.2026;;Submitted;\n"
        )
      )
      yield* Effect.promise(() => writeFile(join(dir, "notes.txt"), "not a report"))
      const documents = yield* Stream.runCollect(connector.fetch(pair(europeanCsv(dir))))
      const byKey = Object.fromEntries(documents.map((d) => [d.documentKey, d]))
      assert.deepStrictEqual(Object.keys(byKey).sort(), ["A-1", "A-2", "A-3"])
      assert.deepStrictEqual(byKey["A-1"], {
        documentKey: "A-1",
        vendorReceivableId: "INV 1",
        amountCents: 123456,
        currency: "EUR",
        receivableDate: "2026-10-01",
        dueDate: "2026-10-31",
        portalStatus: "Paid",
        poNumber: null,
        metadata: { "Cost Center": "CC-7", file_reference: "2026-11-02-export.csv" }
      })
      assert.strictEqual(byKey["A-2"]!.amountCents, 9950)
      assert.isNull(byKey["A-2"]!.dueDate)
      // An unreadable amount reaches the sync, which quarantines the row with the reason.
      let n = 0
      const plan = planPairSync([], documents, {
        refs: { vendor: { id: "v" as VendorId, name: "V" }, debtor: { id: "d" as DebtorId, name: "D" } },
        now: DateTime.makeUnsafe(0),
        newReceivableId: () => `rcv_${(n++).toString(16).padStart(32, "0")}` as ReceivableId
      })
      assert.strictEqual(plan.inserts.length, 2)
      assert.deepStrictEqual(
        plan.quarantined.map((q) => q.documentKey),
        ["A-3"]
      )
      assert.match(plan.quarantined[0]!.reasons.join(" "), /amountCents/)
    })
  )

  it.effect("reads JSON exports too, and the same files give the same documents every time", () =>
    Effect.gen(function* () {
      const dir = yield* withDirectory
      yield* Effect.promise(() =>
        writeFile(
          join(dir, "report.json"),
          JSON.stringify([
            { id: "X-1", total: "1,000.00", ccy: "USD", date: "11/20/2026", state: "APPROVED", po: "PO-1" },
            { id: "X-2", total: 25, ccy: "USD", date: "11/21/2026", state: "Open", po: null }
          ])
        )
      )
      const config = {
        directory: dir,
        format: "json",
        decimalSeparator: ".",
        dateOrder: "MDY",
        columns: {
          documentKey: "id",
          amount: "total",
          receivableDate: "date",
          status: "state",
          currency: "ccy",
          poNumber: "po"
        }
      }
      const first = yield* Stream.runCollect(connector.fetch(pair(config)))
      assert.deepStrictEqual(
        first.map((d) => [d.documentKey, d.amountCents, d.receivableDate, d.poNumber]),
        [
          ["X-1", 100000, "2026-11-20", "PO-1"],
          ["X-2", 2500, "2026-11-21", null]
        ]
      )
      assert.deepStrictEqual(yield* Stream.runCollect(connector.fetch(pair(config))), first)
    })
  )

  it.effect("a missing directory or a broken file is a permanent failure that names it", () =>
    Effect.gen(function* () {
      const dir = yield* withDirectory
      const missing = yield* Effect.flip(Stream.runCollect(connector.fetch(pair(europeanCsv(join(dir, "nope"))))))
      assert.deepStrictEqual([missing.retryable, /nope/.test(missing.message)], [false, true])
      yield* Effect.promise(() => writeFile(join(dir, "bad.json"), "{"))
      const broken = yield* Effect.flip(
        Stream.runCollect(connector.fetch(pair({ ...europeanCsv(dir), format: "json" })))
      )
      assert.deepStrictEqual([broken.retryable, /bad\.json/.test(broken.message)], [false, true])
    })
  )
})
