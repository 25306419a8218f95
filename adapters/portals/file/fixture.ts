/**
 * The `file` connector's portal for the conformance kit: a directory with one export written the
 * way receivables teams get them, US style (`1,234.56`, MM/DD/YYYY, comma-separated) or European
 * style (`1.234,56`, DD.MM.YYYY, semicolon-separated).
 */
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import { symlink } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import {
  type AmountNotation,
  type ConformanceFixture,
  type SampleDocuments,
  temporaryDirectory
} from "../conformance/Conformance.ts"
import { connector } from "./FileConnector.ts"

const configFor = (directory: string, notation: AmountNotation) => ({
  directory,
  format: "csv",
  delimiter: notation.decimalSeparator === "," ? ";" : ",",
  decimalSeparator: notation.decimalSeparator,
  dateOrder: notation.decimalSeparator === "," ? "DMY" : "MDY",
  columns: {
    documentKey: "Invoice Id",
    vendorReceivableId: "Invoice Number",
    amount: "Amount",
    currency: "Currency",
    receivableDate: "Invoice Date",
    dueDate: "Due Date",
    status: "Status",
    poNumber: "PO Number"
  }
})

const writeDate = (iso: string | null, notation: AmountNotation) => {
  if (iso === null) return ""
  const [year, month, day] = iso.split("-")
  return notation.decimalSeparator === "," ? `${day}.${month}.${year}` : `${month}/${day}/${year}`
}

const quote = (cell: string) => `"${cell.replaceAll('"', '""')}"`

const writeExport = async (path: string, documents: SampleDocuments, notation: AmountNotation) => {
  const delimiter = notation.decimalSeparator === "," ? ";" : ","
  const out = createWriteStream(path)
  const line = (cells: ReadonlyArray<string>) => `${cells.map(quote).join(delimiter)}\r\n`
  out.write(
    line([
      "Invoice Id",
      "Invoice Number",
      "Amount",
      "Currency",
      "Invoice Date",
      "Due Date",
      "Status",
      "PO Number",
      "Cost Center"
    ])
  )
  for (let i = 0; i < documents.count; i++) {
    const d = documents.at(i)
    const row = line([
      d.key,
      d.vendorReceivableId,
      d.amountText,
      d.currency,
      writeDate(d.receivableDate, notation),
      writeDate(d.dueDate, notation),
      d.portalStatus,
      d.poNumber ?? "",
      `CC-${i % 17}`
    ])
    if (!out.write(row)) await once(out, "drain")
  }
  out.end()
  await once(out, "finish")
}

export const fixture: ConformanceFixture = {
  connector,
  statuses: [
    ["Submitted", "PENDING"],
    ["Pending Approval", "PENDING"],
    ["Approved", "APPROVED"],
    ["Scheduled for Payment", "APPROVED"],
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"],
    ["On Hold", "DISPUTED"],
    ["Factored", "SOLD"]
  ],
  amountNotations: [
    { decimalSeparator: ".", groupsThousands: true },
    { decimalSeparator: ",", groupsThousands: true }
  ],
  portal: (documents, notation) =>
    Effect.gen(function* () {
      const directory = yield* temporaryDirectory("file-portal")
      yield* Effect.promise(() => writeExport(join(directory, "2026-11-21-receivables.csv"), documents, notation))
      return configFor(directory, notation)
    }),
  invalidConfigs: [
    {
      config: { ...configFor("/exports", { decimalSeparator: ".", groupsThousands: true }), format: "xlsx" },
      field: "format"
    },
    {
      config: { ...configFor("/exports", { decimalSeparator: ".", groupsThousands: true }), decimalSeparator: "·" },
      field: "decimalSeparator"
    },
    {
      config: {
        ...configFor("/exports", { decimalSeparator: ".", groupsThousands: true }),
        columns: { documentKey: "Id" }
      },
      field: "columns.amount"
    },
    {
      config: { ...configFor("/exports", { decimalSeparator: ".", groupsThousands: true }), delimter: ";" },
      field: "delimter"
    }
  ],
  failures: [
    {
      name: "the directory does not exist",
      retryable: false,
      portal: Effect.map(temporaryDirectory("file-portal"), (directory) =>
        configFor(join(directory, "missing"), { decimalSeparator: ".", groupsThousands: true })
      )
    },
    {
      // An export listed but gone when opened, as when it is being replaced.
      name: "an export cannot be opened",
      retryable: true,
      portal: Effect.gen(function* () {
        const directory = yield* temporaryDirectory("file-portal")
        yield* Effect.promise(() => symlink(join(directory, "moved-away.csv"), join(directory, "2026-11-21.csv")))
        return configFor(directory, { decimalSeparator: ".", groupsThousands: true })
      })
    }
  ]
}
