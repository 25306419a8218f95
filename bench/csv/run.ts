/**
 * The CSV reader benchmark (`npm run bench:csv`): read time per MiB of the file connector's
 * reader (csv-parse behind the record scanner) against the hand-written reader it replaced (taken
 * from git at run time, never kept in the tree) and against csv-parse's own streaming parser
 * alone (the floor: what the scanner adds), side by side in one run, rounds interleaved. The
 * export is the shape debtors send: quoted names with delimiters and doubled quotes, amounts,
 * dates, status text. Options (environment): BENCH_CSV_MB (50), BENCH_ROUNDS (5: each figure is
 * the median), BENCH_OLD_REF (the commit holding the hand-written reader); BENCH_SMOKE=1 for a
 * run of seconds (1 MiB, one round).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { parse } from "csv-parse"
import { csvReader } from "../../adapters/portals/file/Csv.ts"
import { option } from "../support/Smoke.ts"

const oldRef = process.env.BENCH_OLD_REF ?? "0714f70c7ec260adb6a8636617af15390b7c2659"
const MiB = 2 ** 20
const targetMiB = option("BENCH_CSV_MB", 50, 1)
const rounds = option("BENCH_ROUNDS", 5, 1)
const chunkSize = 64 * 1024

const row = (i: number) =>
  `INV-${i},"ACME ${i % 97}, Inc.",${(i * 37) % 100_000}.${String(i % 100).padStart(2, "0")},2026-01-${String((i % 28) + 1).padStart(2, "0")},Approved for payment,"note with ""quotes"" ${i}"\r\n`

const chunks: Array<string> = []
let pending = "Invoice Id,Vendor,Amount,Invoice Date,Status,Note\r\n"
let total = 0
for (let i = 0; total < targetMiB * MiB; i++) {
  pending += row(i)
  if (pending.length >= chunkSize) {
    chunks.push(pending.slice(0, chunkSize))
    total += chunkSize
    pending = pending.slice(chunkSize)
  }
}
chunks.push(pending)

type Reader = (chunk: string) => number
const readWith = (reader: { push: Reader; end: () => number }) => {
  let records = 0
  for (const chunk of chunks) records += reader.push(chunk)
  return records + reader.end()
}

const ours = () => {
  const reader = csvReader(",")
  return readWith({ push: (chunk) => reader.push(chunk).length, end: () => reader.end().length })
}

const floor = () =>
  new Promise<number>((resolve, reject) => {
    let records = 0
    const parser = parse({ relax_quotes: true, relax_column_count: true, skip_empty_lines: true })
    parser.on("data", () => records++)
    parser.on("end", () => resolve(records))
    parser.on("error", reject)
    for (const chunk of chunks) parser.write(chunk)
    parser.end()
  })

const oldReader = async (): Promise<(() => number) | undefined> => {
  const directory = mkdtempSync(join(tmpdir(), "bench-csv-"))
  try {
    const source = join(directory, "Csv.ts")
    writeFileSync(source, execFileSync("git", ["show", `${oldRef}:adapters/portals/file/Csv.ts`]))
    const module = (await import(pathToFileURL(source).href)) as { csvReader: typeof csvReader }
    return () => {
      const reader = module.csvReader(",")
      return readWith({ push: (chunk) => reader.push(chunk).length, end: () => reader.end().length })
    }
  } catch {
    console.log(`(the hand-written reader is not at ${oldRef}: compared with csv-parse alone only)`)
    return undefined
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

const cases: Array<[string, () => number | Promise<number>]> = [
  ["file connector reader (csv-parse + scanner)", ours],
  ["csv-parse streaming parser alone (floor)", floor]
]
const old = await oldReader()
if (old !== undefined) cases.push(["hand-written reader (replaced)", old])

const times = new Map<string, Array<number>>(cases.map(([name]) => [name, []]))
const counts = new Map<string, number>()
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of cases) {
    const start = performance.now()
    counts.set(name, await run())
    times.get(name)?.push(performance.now() - start)
  }
}

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const mib = total / MiB
const reference = median(times.get(cases[0]![0]) ?? [])
console.log(`CSV export: ${mib.toFixed(0)} MiB in ${chunks.length} chunks of 64 KiB, median of ${rounds} rounds`)
console.log("| reader | records | ms | MiB/s | time vs ours |")
console.log("| --- | ---: | ---: | ---: | ---: |")
for (const [name] of cases) {
  const ms = median(times.get(name) ?? [])
  console.log(
    `| ${name} | ${counts.get(name)} | ${ms.toFixed(0)} | ${(mib / (ms / 1000)).toFixed(1)} | ${(ms / reference).toFixed(2)}x |`
  )
}
