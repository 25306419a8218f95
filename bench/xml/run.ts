/**
 * The cXML reader benchmark (`node bench/xml/run.ts`): parse time per MB and peak RSS of the old
 * hand-written reader (taken from git at run time, never kept in the tree) and of the streaming
 * reader, side by side, on normal inboxes (InvoiceDetailRequest archives) and hostile files of
 * 1, 4 and 16 MB. Each case runs in a process of its own, so its peak RSS is its own. Options
 * (environment): BENCH_OLD_REF (the commit holding the old reader), BENCH_OLD_HOSTILE_MB (4: the
 * largest hostile file the old reader is given; its quadratic case runs at 32 to 128 KiB, once),
 * BENCH_REPEAT (3: each case's time is the best of that many runs; peak RSS is over all of them);
 * BENCH_SMOKE=1 for a run of seconds (64 KiB files, the old reader's quadratic case at 8 KiB, once).
 * Without the old reader in the clone's history (a shallow clone), the new reader runs alone.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { type XmlEvent, xmlReader } from "../../adapters/portals/cxml/Xml.ts"
import { invoiceDocument } from "../../test/adapters/portals/fixtures/cxml.ts"
import { sampleDocuments } from "../../test/support/conformance/Conformance.ts"
import { option, sized } from "../support/Smoke.ts"

// The last commit with the hand-written reader; the figures compare against it.
const oldRef = process.env.BENCH_OLD_REF ?? "5c4d3f6094565da4439201276c21b0462d73a541"
const oldHostileMiB = option("BENCH_OLD_HOSTILE_MB", 4, 1 / 16)
const MiB = 2 ** 20
const chunkSize = 64 * 1024
const sizes = sized([1, 4, 16], [1 / 16])

type Shape = "normal" | "no-equals" | "huge-attribute" | "deep-nesting" | "no-closing-tag"

const invoices = sampleDocuments(
  10_000,
  [["submitted", "PENDING"]],
  { decimalSeparator: ".", groupsThousands: false },
  true
)
const head = '<?xml version="1.0"?>\n<cXML payloadID="x" timestamp="2026-11-20T10:00:00Z"><Request>'

/** The text of a file of this shape and size, as the 64 KiB chunks a file read gives; never held whole. */
function* chunksOf(shape: Shape, bytes: number): Generator<string> {
  let pending = ""
  let given = 0
  const emit = function* (text: string) {
    pending += text
    while (pending.length >= chunkSize) {
      yield pending.slice(0, chunkSize)
      given += chunkSize
      pending = pending.slice(chunkSize)
    }
  }
  const fill = (unit: string, room: number) => unit.repeat(Math.max(0, Math.floor(room / unit.length)))
  switch (shape) {
    case "normal":
      for (let i = 0; given + pending.length < bytes; i++) yield* emit(invoiceDocument(invoices.at(i % invoices.count)))
      break
    case "no-equals":
      // A start tag with a long run of characters and no `=`: the old attribute regex backtracks.
      yield* emit(`${head}<InvoiceDetailRequest><InvoiceDetailRequestHeader `)
      for (let left = bytes - 200; left > 0; left -= chunkSize) yield* emit("a".repeat(Math.min(left, chunkSize)))
      yield* emit("></InvoiceDetailRequestHeader></InvoiceDetailRequest></Request></cXML>\n")
      break
    case "huge-attribute":
      yield* emit(`${head}<StatusUpdateRequest><InvoiceStatus type="`)
      for (let left = bytes - 200; left > 0; left -= chunkSize) yield* emit("p".repeat(Math.min(left, chunkSize)))
      yield* emit('"><InvoiceIDInfo invoiceID="1"/></InvoiceStatus></StatusUpdateRequest></Request></cXML>\n')
      break
    case "deep-nesting": {
      const depth = Math.floor((bytes - 200) / 7)
      yield* emit(head)
      for (let left = depth; left > 0; left -= 8_000) yield* emit(fill("<a>", Math.min(left, 8_000) * 3))
      for (let left = depth; left > 0; left -= 8_000) yield* emit(fill("</a>", Math.min(left, 8_000) * 4))
      yield* emit("</Request></cXML>\n")
      break
    }
    case "no-closing-tag": {
      // A file cut short: the invoice's lines go on, and `</cXML>` never comes.
      yield* emit(`${head}<InvoiceDetailRequest><InvoiceDetailOrder>\n`)
      const line =
        '<InvoiceDetailItem quantity="1"><UnitPrice><Money currency="USD">1.00</Money></UnitPrice></InvoiceDetailItem>\n'
      while (given + pending.length < bytes) yield* emit(line)
      break
    }
  }
  if (pending !== "") yield pending
}

const wanted = [
  "Request/InvoiceDetailRequest/InvoiceDetailRequestHeader",
  "Request/StatusUpdateRequest",
  "Request/InvoiceDetailRequest/InvoiceDetailSummary",
  "Request/InvoiceDetailRequest/InvoiceDetailOrder/InvoiceDetailOrderInfo"
]

/** The streaming reader, as the connector drives it: chunks in, events out, stopping at the first terminal one. */
const runNew = (shape: Shape, bytes: number) => {
  const reader = xmlReader(wanted)
  let documents = 0
  let outcome = ""
  const look = (events: ReadonlyArray<XmlEvent>) => {
    for (const event of events) {
      if (event._tag === "Document") documents++
      else outcome = `${event._tag}: ${"reason" in event ? event.reason : ""}`
    }
    return outcome !== "" && !outcome.startsWith("Unreadable")
  }
  for (const chunk of chunksOf(shape, bytes)) if (look(reader.push(chunk))) break
  look(reader.end())
  return outcome === "" ? `${documents} documents` : outcome.slice(0, 70)
}

/** The old reader, as the old connector drove it: text split at each `</cXML>`, each piece parsed whole. */
const runOld = async (shape: Shape, bytes: number, source: string) => {
  const { parseXml } = (await import(pathToFileURL(source).href)) as { parseXml: (text: string) => unknown }
  const endTag = "</cXML>"
  let pending = ""
  let documents = 0
  for (const chunk of chunksOf(shape, bytes)) {
    pending += chunk
    for (let end = pending.indexOf(endTag); end >= 0; end = pending.indexOf(endTag)) {
      const text = pending.slice(0, end + endTag.length)
      pending = pending.slice(end + endTag.length)
      try {
        parseXml(text)
        documents++
      } catch (error) {
        return `failed: ${(error as Error).message}`.slice(0, 70)
      }
    }
  }
  return pending.trim() === "" ? `${documents} documents` : "incomplete document (retryable)"
}

interface Figures {
  readonly seconds: number
  /** RSS after start-up and warm-up, before the file; then the process's peak. */
  readonly baseRssMiB: number
  readonly peakRssMiB: number
  readonly outcome: string
}

// A child process runs one case and prints its figures as JSON.
const [, , role, reader, shape, mib, source, repeat] = process.argv
if (role === "--case") {
  const bytes = Number(mib) * MiB
  const run = (kind: Shape, size: number) =>
    reader === "new" ? Promise.resolve(runNew(kind, size)) : runOld(kind, size, source as string)
  // Warmed up on a small normal file first, so that the figures are the reader's, not the JIT's.
  await run("normal", sized(MiB / 4, MiB / 64))
  const baseRssMiB = process.memoryUsage().rss / MiB
  // The best of a few runs: on a shared machine the slowest say more about neighbours than about the reader.
  let seconds = Number.POSITIVE_INFINITY
  let outcome = ""
  for (let round = 0; round < Number(repeat); round++) {
    const started = performance.now()
    outcome = await run(shape as Shape, bytes)
    seconds = Math.min(seconds, (performance.now() - started) / 1000)
  }
  const figures: Figures = {
    seconds,
    baseRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    outcome
  }
  process.stdout.write(JSON.stringify(figures))
  process.exit(0)
}

const scratch = mkdtempSync(join(tmpdir(), "bench-xml-"))
const oldSource = join(scratch, "OldXml.ts")
const hasOld = (() => {
  try {
    const text = execFileSync("git", ["show", `${oldRef}:adapters/portals/cxml/Xml.ts`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"]
    })
    writeFileSync(oldSource, text)
    return true
  } catch {
    return false
  }
})()

const repeats = option("BENCH_REPEAT", 3, 1)
const measure = (which: "old" | "new", shape: Shape, size: number): Figures => {
  // The old reader's quadratic case takes long enough once.
  const times = which === "old" && shape === "no-equals" ? 1 : repeats
  return JSON.parse(
    execFileSync(
      process.execPath,
      [import.meta.filename, "--case", which, shape, String(size), oldSource, String(times)],
      {
        encoding: "utf8",
        maxBuffer: MiB
      }
    )
  ) as Figures
}

const cells = (figures: Figures | undefined, size: number) =>
  figures === undefined
    ? ["not run", "", ""]
    : [
        (figures.seconds / size).toFixed(3),
        `${figures.baseRssMiB.toFixed(0)} → ${figures.peakRssMiB.toFixed(0)}`,
        figures.outcome
      ]

const log = (line: string) => process.stdout.write(`${line}\n`)
log(
  hasOld
    ? `old reader: ${oldRef.slice(0, 12)}:adapters/portals/cxml/Xml.ts; Node ${process.version}; best of ${repeats}`
    : `(the old reader is not at ${oldRef}: the new reader alone); Node ${process.version}; best of ${repeats}`
)
log("")
log(
  "| file | MB | old s/MB | old RSS MiB (base → peak) | old outcome | new s/MB | new RSS MiB (base → peak) | new outcome |"
)
log("|---|---|---|---|---|---|---|---|")
const shapes: ReadonlyArray<Shape> = ["normal", "no-equals", "huge-attribute", "deep-nesting", "no-closing-tag"]
// The old reader's quadratic cases take minutes past a few hundred KB: it runs them small.
const oldSizes = (shape: Shape) =>
  !hasOld
    ? []
    : shape === "normal"
      ? sizes
      : shape === "no-equals"
        ? sized([0.03125, 0.0625, 0.125], [1 / 128])
        : sizes.filter((size) => size <= oldHostileMiB)
for (const shape of shapes) {
  const all = [...new Set([...oldSizes(shape), ...sizes])].sort((a, b) => a - b)
  for (const size of all) {
    const old = oldSizes(shape).includes(size) ? measure("old", shape, size) : undefined
    const fresh = sizes.includes(size) ? measure("new", shape, size) : undefined
    log(`| ${[shape, String(size), ...cells(old, size), ...cells(fresh, size)].join(" | ")} |`)
  }
}
rmSync(scratch, { recursive: true, force: true })
