/**
 * What compressing the API's answers costs and saves: gzip and brotli at several levels against
 * sending the bytes uncompressed, side by side in one run, on real list pages (the service's own
 * wire encoding, `core/api/Wire.ts`, of receivables shaped like `bench/api`'s dataset) at limit
 * 100 and 500, and on small answers for the threshold. Part one: CPU per compression and size, in
 * this process, through `adapters/http/transport/Compression.ts` itself. Part two: a server process
 * that digests (ETag) and compresses every answer as the service does, loaded over loopback; its
 * CPU per request (all threads, from `/proc`) includes writing the bytes to the socket, so the
 * identity line is what sending uncompressed costs. Options: BENCH_SECONDS (3 per line);
 * BENCH_SMOKE=1 for a run of seconds (one compression per line, a fixed number of requests).
 */
import { fork } from "node:child_process"
import { createServer } from "node:http"
import autocannon from "autocannon"
import { Effect, Schema } from "effect"
import * as Compression from "../../adapters/http/transport/Compression.ts"
import * as EntityTag from "../../adapters/http/transport/EntityTag.ts"
import * as Wire from "../../core/api/Wire.ts"
import { Receivable } from "../../core/receivables/domain/Resources.ts"
import { processCpuSeconds } from "../ProcessCpu.ts"
import { option, sized, smoke } from "../support/Smoke.ts"

const statuses = ["PENDING", "APPROVED", "PAID", "SOLD", "DISPUTED", "ACKNOWLEDGED"] as const
const portal = ["Submitted", "Approved for payment", "Paid", "Factored", "Rejected", "Received"] as const

// A fixed pseudo-random sequence, so every run (and the server process) builds the same bodies.
let seed = 42
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}
const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join("")
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`
const day = 86_400_000
const base = Date.UTC(2026, 10, 23)

const vendors = Array.from({ length: 10 }, (_, i) => ({ id: uuid(), name: `Vendor ${i + 1}` }))
const debtors = Array.from({ length: 5 }, (_, i) => ({ id: uuid(), name: `Debtor ${i + 1}` }))

// As bench/api/dataset.ts writes them: 5 to 10 metadata keys, 1 to 5 history entries.
const wireReceivable = (g: number) => {
  const detected = base - 400 * day + g * 3_600_000 + Math.floor(random() * 3_600_000)
  const date = new Date(base - (g % 365) * day).toISOString().slice(0, 10)
  const status = statuses[g % 6]!
  return {
    id: `rcv_${hex(32)}`,
    object: "receivable",
    vendor_receivable_id: `INV-${g}`,
    vendor: vendors[g % vendors.length]!,
    debtor: debtors[g % debtors.length]!,
    amount_cents: Math.floor(random() * 10_000_000),
    currency: ["EUR", "USD", "GBP"][g % 3]!,
    receivable_date: date,
    due_date: new Date(Date.parse(date) + 30 * day).toISOString().slice(0, 10),
    status,
    portal_status: portal[g % 6]!,
    po_number: `PO-${g * 7}`,
    detected_at: new Date(detected).toISOString(),
    updated_at: new Date(detected + day).toISOString(),
    estimated_next_update_at: new Date(base + Math.floor(random() * 3_600_000)).toISOString(),
    history: Array.from({ length: 1 + (g % 5) }, (_, h) => ({
      changed_at: new Date(detected + (h + 1) * 3_600_000).toISOString(),
      changes: {
        status: { from: "PENDING", to: status },
        portal_status: { from: "Submitted", to: portal[g % 6]! }
      }
    })),
    metadata: {
      payment_terms: g % 2 === 0 ? "NET30" : "NET60",
      supplier_code: `S-${g}`,
      buyer_contact: `ap${g}@example.com`,
      file_reference: `export-${g}.csv`,
      region: "EU",
      ...(g % 2 === 0 ? { cost_center: `CC-${g}`, approver: `user${g}`, batch: `B${g % 50}`, channel: "portal" } : {})
    }
  }
}

const decode = Schema.decodeUnknownSync(Receivable)
const receivables = Array.from({ length: 500 }, (_, g) => decode(wireReceivable(g + 1)))
const listed = receivables.map(({ history: _, metadata: __, ...item }) => item)

const page = (items: typeof receivables) =>
  JSON.stringify(
    Wire.receivablePage({
      object: "list",
      data: items,
      hasMore: true,
      totalCount: 200_000,
      nextVerifiedSince: receivables[0]!.updatedAt
    })
  )

const bodies = [
  { name: "single receivable", text: JSON.stringify(Wire.receivable(receivables[0]!)) },
  { name: "list, limit 1", text: page(listed.slice(0, 1)) },
  { name: "list, limit 10", text: page(listed.slice(0, 10)) },
  { name: "list, limit 100", text: page(listed.slice(0, 100)) },
  { name: "list, limit 500", text: page(listed) },
  { name: "list, limit 100, expand[]=history&metadata", text: page(receivables.slice(0, 100)) }
].map(({ name, text }) => ({ name, bytes: Buffer.from(text) }))

interface Setting {
  readonly coding: "identity" | Compression.Compressed
  readonly level: number
}

const settings: ReadonlyArray<Setting> = [
  { coding: "identity", level: 0 },
  ...[1, 4, 6, 9].map((level) => ({ coding: "gzip" as const, level })),
  ...[1, 4, 5, 6, 9, 11].map((level) => ({ coding: "br" as const, level }))
]

const run = (bytes: Uint8Array, setting: Setting): Promise<Uint8Array> =>
  setting.coding === "identity"
    ? Promise.resolve(bytes)
    : Effect.runPromise(Compression.compress(bytes, setting.coding, { gzip: setting.level, br: setting.level }))

const label = (s: Setting) => (s.coding === "identity" ? "identity" : `${s.coding} ${s.level}`)

// The server process: every answer digested and compressed per request, as the service does.
if (process.argv[2] === "serve") {
  const server = createServer((request, response) => {
    const [, index, coding, level] = (request.url ?? "").split("/")
    const body = bodies[Number(index)]!
    const etag = EntityTag.digest(body.bytes)
    void run(body.bytes, { coding: coding as Setting["coding"], level: Number(level) }).then((out) => {
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": out.length,
        etag,
        ...(coding === "identity" ? {} : { "content-encoding": coding })
      })
      response.end(out)
    })
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    process.send?.(typeof address === "object" && address !== null ? address.port : 0)
  })
} else {
  const seconds = option("BENCH_SECONDS", 3, 1)
  const rounds = sized(5, 1)
  const kib = (n: number) => (n / 1024).toFixed(1)
  // Time to move the bytes at a client's bandwidth: what compression buys a consumer.
  const transferMs = (n: number, mbit: number) => ((n * 8) / (mbit * 1000)).toFixed(1)

  console.log("## Part one: one compression at a time, in this process (median of rounds)\n")
  console.log("| body | identity KiB | setting | KiB | ratio | CPU ms | wall ms |")
  console.log("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
  for (const body of bodies) {
    for (const setting of settings.filter((s) => s.coding !== "identity")) {
      const measured: Array<{ cpu: number; wall: number; size: number }> = []
      const iterations = sized(Math.max(3, Math.min(200, Math.floor(2_000_000 / body.bytes.length))), 1)
      for (let round = 0; round < rounds; round++) {
        const cpu = process.cpuUsage()
        const wall = performance.now()
        let size = 0
        for (let i = 0; i < iterations; i++) size = (await run(body.bytes, setting)).length
        const used = process.cpuUsage(cpu)
        measured.push({
          cpu: (used.user + used.system) / 1000 / iterations,
          wall: (performance.now() - wall) / iterations,
          size
        })
      }
      const median = (f: (r: (typeof measured)[number]) => number) =>
        measured.map(f).sort((a, b) => a - b)[Math.floor(rounds / 2)]!
      const size = measured[0]!.size
      console.log(
        `| ${body.name} | ${kib(body.bytes.length)} | ${label(setting)} | ${kib(size)} | ${(body.bytes.length / size).toFixed(1)} | ${median((r) => r.cpu).toFixed(3)} | ${median((r) => r.wall).toFixed(3)} |`
      )
    }
  }
  const digestCpu = (() => {
    const body = bodies.find((b) => b.name === "list, limit 500")!
    const start = process.cpuUsage()
    for (let i = 0; i < 200; i++) EntityTag.digest(body.bytes)
    const used = process.cpuUsage(start)
    return (used.user + used.system) / 1000 / 200
  })()
  console.log(`\nETag digest (SHA-256) of the limit-500 page: ${digestCpu.toFixed(3)} ms CPU\n`)

  const child = fork(import.meta.filename, ["serve"], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(Number(m))))
  console.log(`## Part two: over HTTP, 4 connections, ${seconds} s a line; server CPU per request, all threads\n`)
  console.log(
    "| body | setting | bytes sent KiB | requests/s | p50 ms | p99 ms | server CPU ms/request | at 10 Mbit/s ms | at 100 Mbit/s ms |"
  )
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for (const index of [3, 4]) {
    const body = bodies[index]!
    for (const setting of settings.filter((s) => s.coding === "identity" || s.level <= 9)) {
      const size = (await run(body.bytes, setting)).length
      const before = processCpuSeconds(child.pid!)
      const result = await autocannon({
        url: `http://127.0.0.1:${port}/${index}/${setting.coding}/${setting.level}`,
        connections: 4,
        // autocannon ends a run on its next sample tick, by default a second away.
        ...(smoke ? { amount: 20, sampleInt: 50 } : { duration: seconds })
      })
      const cpuMs = ((processCpuSeconds(child.pid!) - before) * 1000) / result.requests.total
      console.log(
        `| ${body.name} | ${label(setting)} | ${kib(size)} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${cpuMs.toFixed(3)} | ${transferMs(size, 10)} | ${transferMs(size, 100)} |`
      )
    }
  }
  child.kill()
}
