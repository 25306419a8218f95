/**
 * The file connector on exports as they really arrive: other encodings, rows without keys,
 * nested JSON, oversize fields and files, FIFOs. Every row a portal sent is either read or
 * reported (quarantined with a reason naming where it is); nothing is lost without a word.
 */
import { execFileSync } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Stream } from "effect"
import { maxRecordCharacters } from "../../../adapters/portals/file/Csv.ts"
import { connector, maxJsonBytes } from "../../../adapters/portals/file/FileConnector.ts"
import { type FetchedDocument, planPairSync } from "../../../core/receivables/domain/PairSync.ts"
import type { DebtorId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import { pairToFetch, temporaryDirectory } from "../../support/conformance/Conformance.ts"

const csvConfig = (directory: string, extra: Readonly<Record<string, unknown>> = {}) => ({
  directory,
  format: "csv",
  dateOrder: "YMD",
  currency: "EUR",
  columns: { documentKey: "Id", amount: "Amount", receivableDate: "Date", status: "Status" },
  ...extra
})

const exportsWith = (files: Readonly<Record<string, string | Buffer>>) =>
  Effect.gen(function* () {
    const directory = yield* temporaryDirectory("file-exports")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(directory, name), content)))
    )
    return directory
  })

const fetchWith = (config: unknown) => Stream.runCollect(connector.fetch(pairToFetch(config)))

/** What the sync makes of a fetch: what it stores, and what it quarantines with which reasons. */
const synced = (documents: ReadonlyArray<FetchedDocument>) => {
  let n = 0
  const plan = planPairSync([], documents, {
    refs: { vendor: { id: "v" as VendorId, name: "V" }, debtor: { id: "d" as DebtorId, name: "D" } },
    now: DateTime.makeUnsafe(0),
    newReceivableId: () => `rcv_${(n++).toString(16).padStart(32, "0")}` as ReceivableId
  })
  return {
    stored: plan.inserts.map((insert) => insert.documentKey),
    quarantined: plan.quarantined.map((q) => [q.documentKey, q.reasons.join("; ")])
  }
}

const csv = "Id,Amount,Date,Status,Note\nA-1,10.50,2026-11-01,Open,Müller & Söhne\n"

describe("the file connector's encodings", () => {
  it.effect("reads a UTF-16 export with a byte-order mark, little- or big-endian, whatever the setting", () =>
    Effect.gen(function* () {
      const le = Buffer.from(`\uFEFF${csv}`, "utf16le")
      const be = Buffer.from(le).swap16()
      for (const bytes of [le, be]) {
        const directory = yield* exportsWith({ "export.csv": bytes })
        const [document, ...more] = yield* fetchWith(csvConfig(directory))
        assert.deepStrictEqual(
          [document?.documentKey, document?.amountCents, document?.metadata.Note, more.length],
          ["A-1", 1050, "Müller & Söhne", 0]
        )
      }
    })
  )

  it.effect(
    "reads Latin-1 when the setting says so, and refuses it for good, naming file, byte and setting, when not",
    () =>
      Effect.gen(function* () {
        const directory = yield* exportsWith({ "export.csv": Buffer.from(csv, "latin1") })
        const [document] = yield* fetchWith(csvConfig(directory, { encoding: "latin1" }))
        assert.strictEqual(document?.metadata.Note, "Müller & Söhne")
        const failure = yield* Effect.flip(fetchWith(csvConfig(directory)))
        assert.isFalse(failure.retryable)
        assert.strictEqual(
          failure.message,
          `export.csv is not valid utf-8 at byte ${csv.indexOf("ü")}: the "encoding" setting says utf-8; set it to the export's encoding (utf-8, utf-16le, utf-16be, latin1 or windows-1252)`
        )
      })
  )
})

describe("the file connector reports what it cannot read", () => {
  it.effect("a row without a key, and a key repeated in one export, are quarantined with their row numbers", () =>
    Effect.gen(function* () {
      const directory = yield* exportsWith({
        "1-old.csv": "Id,Amount,Date,Status\nA-1,1.00,2026-11-01,Open\n",
        "2-new.csv":
          "Id,Amount,Date,Status\nA-1,2.00,2026-11-01,Paid\n ,3.00,2026-11-02,Open\nA-2,4.00,2026-11-03,Open\nA-2,5.00,2026-11-03,Open\n"
      })
      assert.deepStrictEqual(synced(yield* fetchWith(csvConfig(directory))), {
        stored: ["A-1", "A-2"],
        quarantined: [
          ["2-new.csv row 3", 'the "Id" column is empty'],
          ["2-new.csv row 5", 'repeats the document key "A-2" of an earlier row']
        ]
      })
    })
  )

  it.effect(
    "a JSON export keeps nested values as JSON text, numbers and booleans as written, and reports items it cannot read",
    () =>
      Effect.gen(function* () {
        const directory = yield* exportsWith({
          "report.json": JSON.stringify([
            {
              Id: "J-1",
              Amount: 12.5,
              Date: "2026-11-01",
              Status: "Open",
              buyer: { name: "Globex", tags: ["a"] },
              disputed: false,
              lines: [1, 2]
            },
            { Id: { nested: true }, Amount: 1, Date: "2026-11-01", Status: "Open" },
            "not a row",
            { Amount: 1, Date: "2026-11-01", Status: "Open" }
          ])
        })
        const fetched = yield* fetchWith(csvConfig(directory, { format: "json" }))
        assert.deepStrictEqual(fetched[0]?.metadata, {
          buyer: '{"name":"Globex","tags":["a"]}',
          disputed: "false",
          lines: "[1,2]",
          file_reference: "report.json"
        })
        assert.strictEqual(fetched[0]?.amountCents, 1250)
        assert.deepStrictEqual(synced(fetched).quarantined, [
          ["report.json item 2", 'the "Id" field holds an object, not a document key'],
          ["report.json item 3", "the item is a string, not an object"],
          ["report.json item 4", 'the "Id" column is empty']
        ])
      })
  )

  it.effect("a FIFO among the exports is reported as not a regular file instead of hanging the sync", () =>
    Effect.gen(function* () {
      const directory = yield* exportsWith({ "1.csv": csv })
      execFileSync("mkfifo", [join(directory, "2-pipe.csv")])
      assert.deepStrictEqual(synced(yield* fetchWith(csvConfig(directory))), {
        stored: ["A-1"],
        quarantined: [["2-pipe.csv", "2-pipe.csv is a named pipe (FIFO): only regular files are read"]]
      })
    })
  )
})

describe("the file connector's limits", () => {
  it.effect("a 10 MB field quarantines its row, naming the limit, and the rows after it apply", () =>
    Effect.gen(function* () {
      const huge = `"${"x".repeat(10 * 2 ** 20)}"`
      const directory = yield* exportsWith({
        "export.csv": `Id,Amount,Date,Status,Note\nA-1,1.00,2026-11-01,Open,${huge}\nA-2,2.00,2026-11-01,Open,ok\n`
      })
      const fetched = yield* fetchWith(csvConfig(directory))
      assert.isTrue(fetched.every((document) => JSON.stringify(document).length < 1_000))
      assert.deepStrictEqual(synced(fetched), {
        stored: ["A-2"],
        quarantined: [
          [
            "export.csv row 2",
            `the row is ${(10 * 2 ** 20 + 27).toLocaleString("en")} characters long, over the limit of ${maxRecordCharacters.toLocaleString("en")}`
          ]
        ]
      })
    })
  )

  it.effect("a JSON export over the limit fails for good, naming the limit, without being parsed", () =>
    Effect.gen(function* () {
      const directory = yield* exportsWith({ "big.json": `[${'"x",'.repeat(maxJsonBytes / 4)}"x"]` })
      const failure = yield* Effect.flip(fetchWith(csvConfig(directory, { format: "json" })))
      assert.deepStrictEqual(
        [failure.retryable, failure.message],
        [false, "big.json is over the 32 MiB a JSON export may have: export CSV, which is streamed, or split it"]
      )
    })
  )

  it.effect("decimalSeparator may be left out: amounts are then read with a point", () =>
    Effect.gen(function* () {
      const directory = yield* exportsWith({ "export.csv": 'Id,Amount,Date,Status\nA-1,"1,234.56",2026-11-01,Open\n' })
      const [document] = yield* fetchWith(csvConfig(directory))
      assert.strictEqual(document?.amountCents, 123456)
    })
  )
})
