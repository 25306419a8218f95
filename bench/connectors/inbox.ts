/**
 * The inbox connectors at size (`npm run bench:inbox`): `peppol` and `cxml` side by side, each on
 * its conformance fixture's inbox of 100,000 invoices (BENCH_INVOICES) with the buyer's responses
 * or the network's status updates for most of them and older ones for a share, in a local
 * directory and over SFTP (Debian's `sshd` on loopback, as `SftpInbox.test.ts` starts it). Each
 * case runs in a process of its own, so its peak RSS is its own; the heap the fetch retains is
 * measured after a forced collection at every tenth of the stream, against the conformance kit's
 * bound (`streamingHeapBoundMiB`). The fixtures file large inboxes as archives of a thousand
 * documents; a last case files a Peppol inbox as access points deliver it, one document a file
 * (5,000 invoices, BENCH_FILE_INVOICES: over 10,000 files), over SFTP. BENCH_ONLY=<case ids, comma
 * separated> runs those cases (ids: peppol-local, cxml-local, peppol-sftp, cxml-sftp,
 * peppol-sftp-files). BENCH_SMOKE=1 reads 300 invoices a case, 50 one document a file.
 */
import { execFileSync } from "node:child_process"
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { fixture as cxml } from "../../test/adapters/portals/fixtures/cxml.ts"
import { fixture as peppol, writeInbox } from "../../test/adapters/portals/fixtures/peppol.ts"
import { startSshd } from "../../test/adapters/portals/fixtures/sshd.ts"
import {
  type ConformanceFixture,
  measureStreaming,
  type StreamingMeasurement,
  streamingHeapBoundMiB,
  temporaryDirectory
} from "../../test/support/conformance/Conformance.ts"
import { option } from "../support/Smoke.ts"

const invoices = option("BENCH_INVOICES", 100_000, 300)
const fileInvoices = option("BENCH_FILE_INVOICES", 5_000, 50)

const peppolFileByFile: ConformanceFixture = {
  ...peppol,
  portal: (documents) =>
    Effect.gen(function* () {
      const inbox = yield* temporaryDirectory("peppol-inbox")
      yield* Effect.promise(() => writeInbox(inbox, documents, 1))
      return { inbox }
    })
}

interface Case {
  readonly id: string
  readonly connector: string
  readonly fixture: ConformanceFixture
  readonly source: "local" | "sftp"
  readonly invoices: number
}

const only = process.env.BENCH_ONLY?.split(",").filter((id) => id !== "")
const cases: ReadonlyArray<Case> = [
  { id: "peppol-local", connector: "peppol", fixture: peppol, source: "local" as const, invoices },
  { id: "cxml-local", connector: "cxml", fixture: cxml, source: "local" as const, invoices },
  { id: "peppol-sftp", connector: "peppol", fixture: peppol, source: "sftp" as const, invoices },
  { id: "cxml-sftp", connector: "cxml", fixture: cxml, source: "sftp" as const, invoices },
  {
    id: "peppol-sftp-files",
    connector: "peppol, a document a file",
    fixture: peppolFileByFile,
    source: "sftp" as const,
    invoices: fileInvoices
  }
].filter((each) => only === undefined || only.length === 0 || only.includes(each.id))
const keyVariable = "BENCH_SFTP_KEY"
const MiB = 2 ** 20

interface Figures extends StreamingMeasurement {
  readonly files: number
  /** Every document of the inbox: invoices, and the responses, status updates and credit notes about them. */
  readonly inboxDocuments: number
  readonly inboxMiB: number
  readonly peakRssMiB: number
}

/** What the inbox holds: files, documents (one XML declaration each, as the fixtures write them) and bytes. */
const inboxSize = async (directory: string) => {
  const names = (await readdir(directory)).filter((name) => name.endsWith(".xml"))
  let documents = 0
  let bytes = 0
  for (const name of names) {
    const text = await readFile(join(directory, name), "utf8")
    documents += text.split("<?xml ").length - 1
    bytes += Buffer.byteLength(text)
  }
  return { files: names.length, documents, MiB: bytes / MiB }
}

// A child process runs one case and prints its figures as JSON.
const [, , role, id] = process.argv
if (role === "--case") {
  const { fixture: base, source, invoices } = cases.find((each) => each.id === id)!
  const figures = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        let directory = ""
        const sshd = source === "sftp" ? yield* startSshd : undefined
        // The fixture's own inbox, read in place or through the server, which serves this machine's files.
        const fixture: ConformanceFixture = {
          ...base,
          secrets: sshd === undefined ? {} : { [keyVariable]: sshd.clientKey },
          portal: (documents, notation) =>
            Effect.map(base.portal(documents, notation), (config) => {
              directory = (config as { readonly inbox: string }).inbox
              return sshd === undefined
                ? config
                : {
                    sftp: {
                      host: "127.0.0.1",
                      port: sshd.port,
                      user: sshd.user,
                      privateKey: { env: keyVariable },
                      directory,
                      hostKey: sshd.hostKey.fingerprint,
                      // An inbox of one document a file is over the default 10,000, as the connector's README says.
                      maxFiles: 1_000_000
                    }
                  }
            })
        }
        const measured = yield* measureStreaming(fixture, invoices)
        const peakRssMiB = process.resourceUsage().maxRSS / 1024
        const size = yield* Effect.promise(() => inboxSize(directory))
        return {
          ...measured,
          files: size.files,
          inboxDocuments: size.documents,
          inboxMiB: size.MiB,
          peakRssMiB
        } satisfies Figures
      })
    )
  )
  process.stdout.write(JSON.stringify(figures))
  process.exit(0)
}

const measure = (id: string): Figures =>
  JSON.parse(
    execFileSync(process.execPath, [import.meta.filename, "--case", id], { encoding: "utf8", maxBuffer: MiB })
  ) as Figures

const lines = [
  `Each case in a process of its own; Node ${process.version}; bound: ${streamingHeapBoundMiB} MiB retained`,
  "",
  "| connector | inbox | invoices | files | documents | MiB | s | invoices/s | each once | peak retained heap MiB | RSS MiB (before → peak) | within bound |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|"
]
for (const { id, connector, source } of cases) {
  const figures = measure(id)
  lines.push(
    `| ${[
      connector,
      source,
      figures.documents.toLocaleString("en"),
      figures.files.toLocaleString("en"),
      figures.inboxDocuments.toLocaleString("en"),
      figures.inboxMiB.toFixed(0),
      figures.seconds.toFixed(1),
      Math.round(figures.documents / figures.seconds).toLocaleString("en"),
      figures.eachOnce ? "yes" : "no",
      figures.peakMiB.toFixed(1),
      `${figures.rssBeforeMiB.toFixed(0)} → ${figures.peakRssMiB.toFixed(0)}`,
      figures.eachOnce && figures.peakMiB <= streamingHeapBoundMiB ? "yes" : "no"
    ].join(" | ")} |`
  )
}
console.log(lines.join("\n"))
