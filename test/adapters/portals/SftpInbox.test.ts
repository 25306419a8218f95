/**
 * The SFTP inbox against a real OpenSSH server on loopback (`fixtures/sshd.ts`), through the
 * connectors that read inboxes: host-key pinning, files read as streams while they grow, a
 * directory of 10,000 files in bounded memory, only new files at the next sync, limits, and
 * credentials that never reach a message.
 */
import { appendFile, mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import fc from "fast-check"
import * as Cxml from "../../../adapters/portals/cxml/CxmlConnector.ts"
import * as File from "../../../adapters/portals/file/FileConnector.ts"
import { fingerprintOf, hostKeyMatches } from "../../../adapters/portals/inbox/SftpInbox.ts"
import * as Peppol from "../../../adapters/portals/peppol/PeppolConnector.ts"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { type PairToFetch, validateConfig } from "../../../core/receivables/ports/PortalConnector.ts"
import type { PairId } from "../../../core/shared/domain/Ids.ts"
import {
  collectGarbage,
  pairToFetch,
  sampleDocuments,
  streamingHeapBoundMiB,
  temporaryDirectory
} from "../../support/conformance/Conformance.ts"
import { invoiceDocument, statusDocument } from "./fixtures/cxml.ts"
import { invoiceDocument as peppolInvoice, responseDocument } from "./fixtures/peppol.ts"
import { keyPair, startSshd, type TestSshd } from "./fixtures/sshd.ts"

const clientKeyVariable = "SFTP_TEST_CLIENT_KEY"

const sftpOf = (sshd: TestSshd, directory: string, settings: Record<string, unknown> = {}) => ({
  host: "127.0.0.1",
  port: sshd.port,
  user: sshd.user,
  privateKey: { env: clientKeyVariable },
  directory,
  hostKey: sshd.hostKey.fingerprint,
  ...settings
})

/** The settings signing in with a password instead of the key. */
const withPassword = ({ privateKey: _, ...settings }: Record<string, unknown>) => ({
  ...settings,
  password: { env: "SFTP_PASSWORD" }
})

const csvConfig = (sftp: Record<string, unknown>) => ({
  sftp,
  format: "csv",
  dateOrder: "YMD",
  currency: "EUR",
  columns: { documentKey: "id", amount: "amount", receivableDate: "date", status: "status" }
})

const csv = (keys: ReadonlyArray<string>) =>
  `id,amount,date,status\n${keys.map((key) => `${key},12.50,2026-11-02,approved`).join("\n")}\n`

let integrations = 0
/** A pair of its own: what one integration's fetches read is remembered apart from another's. */
const pairOf = (config: unknown, secrets: Record<string, string>): PairToFetch => ({
  ...pairToFetch(config, secrets),
  integrationId: `00000000-0000-4000-8000-${String(++integrations).padStart(12, "0")}` as PairId
})

const keysOf = (documents: Iterable<FetchedDocument>) => [...documents].map((document) => document.documentKey)

const fetchWith = (pair: PairToFetch) => Stream.runCollect(File.connector.fetch(pair))

/** An inbox directory the server serves, and the sshd serving it. */
const setUp = Effect.gen(function* () {
  const sshd = yield* startSshd
  const directory = yield* temporaryDirectory("sftp-inbox")
  return { sshd, directory, secrets: { [clientKeyVariable]: sshd.clientKey } }
})

describe("the SFTP inbox", () => {
  it.effect("reads exports over SFTP with the host key pinned by fingerprint or by key line", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      yield* Effect.promise(async () => {
        await writeFile(join(directory, "2026-11-01.csv"), csv(["A-1", "A-2"]))
        await writeFile(join(directory, "2026-11-02.csv"), csv(["A-2", "A-3"]))
        await mkdir(join(directory, "archive.csv"))
        await writeFile(join(directory, "notes.txt"), "not an export")
      })
      for (const hostKey of [sshd.hostKey.fingerprint, `${sshd.hostKey.publicKey} sftp.portal.example`]) {
        const documents = yield* fetchWith(pairOf(csvConfig(sftpOf(sshd, directory, { hostKey })), secrets))
        assert.deepStrictEqual(keysOf(documents).sort(), ["A-1", "A-2", "A-3", "archive.csv"])
        const newer = documents.find((document) => document.documentKey === "A-2")
        assert.strictEqual(newer?.metadata.file_reference, "2026-11-02.csv")
        const directoryRow = documents.find((document) => document.documentKey === "archive.csv")
        assert.deepStrictEqual(directoryRow?.unreadable, ["archive.csv is a directory: only regular files are read"])
      }
    })
  )

  it.effect(
    "follows a symbolic link; a missing directory waits for the interval, a dangling link is retried sooner",
    () =>
      Effect.gen(function* () {
        const { sshd, directory, secrets } = yield* setUp
        const elsewhere = yield* temporaryDirectory("sftp-elsewhere")
        yield* Effect.promise(async () => {
          await writeFile(join(elsewhere, "export.csv"), csv(["B-1"]))
          await symlink(join(elsewhere, "export.csv"), join(directory, "2026-11-01.csv"))
        })
        const linked = yield* fetchWith(pairOf(csvConfig(sftpOf(sshd, directory)), secrets))
        assert.deepStrictEqual(keysOf(linked), ["B-1"])
        const missing = yield* Effect.flip(fetchWith(pairOf(csvConfig(sftpOf(sshd, join(directory, "gone"))), secrets)))
        assert.isFalse(missing.retryable)
        assert.include(missing.message, "gone cannot be opened")
        yield* Effect.promise(() => symlink(join(elsewhere, "arriving.csv"), join(directory, "2026-11-02.csv")))
        const dangling = yield* Effect.flip(fetchWith(pairOf(csvConfig(sftpOf(sshd, directory)), secrets)))
        assert.isTrue(dangling.retryable)
        assert.include(dangling.message, "2026-11-02.csv cannot be read")
      })
  )

  it.effect("refuses a server whose host key is not the pinned one, before signing in", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      yield* Effect.promise(() => writeFile(join(directory, "2026-11-01.csv"), csv(["A-1"])))
      const other = yield* keyPair(directory, "other_ed25519")
      for (const hostKey of [other.fingerprint, other.publicKey]) {
        const outcome = yield* Effect.result(
          fetchWith(pairOf(csvConfig(sftpOf(sshd, directory, { hostKey })), secrets))
        )
        assert.isTrue(Result.isFailure(outcome), hostKey)
        if (Result.isFailure(outcome)) {
          assert.isFalse(outcome.failure.retryable)
          assert.include(outcome.failure.message, "not the pinned one")
        }
      }
      // With the fingerprint pinned, the key the server presented is named, for the operator to compare.
      const fingerprintOnly = yield* Effect.flip(
        fetchWith(pairOf(csvConfig(sftpOf(sshd, directory, { hostKey: other.fingerprint })), secrets))
      )
      assert.include(fingerprintOnly.message, sshd.hostKey.fingerprint)
      // No credential was offered: the server saw no sign-in at all.
      assert.notMatch(sshd.log(), /Accepted|Failed|Invalid user/)
    })
  )

  it.effect("reads only new or changed files at the next sync, and a newer export still wins", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      const pair = pairOf(csvConfig(sftpOf(sshd, directory)), secrets)
      const write = (name: string, keys: ReadonlyArray<string>) =>
        Effect.promise(() => writeFile(join(directory, name), csv(keys)))
      yield* write("2026-11-01.csv", ["A-1", "A-2"])
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)).sort(), ["A-1", "A-2"])
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)), [])
      yield* write("2026-11-03.csv", ["A-3"])
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)), ["A-3"])
      // A changed older export is read with every export after it, so its rows do not override newer ones.
      yield* write("2026-11-01.csv", ["A-1", "A-2", "A-3", "A-4"])
      const again = yield* fetchWith(pair)
      assert.deepStrictEqual(keysOf(again).sort(), ["A-1", "A-2", "A-3", "A-4"])
      assert.strictEqual(
        again.find((document) => document.documentKey === "A-3")?.metadata.file_reference,
        "2026-11-03.csv"
      )
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)), [])
      // Another integration on the same directory has read nothing yet.
      assert.deepStrictEqual(keysOf(yield* fetchWith(pairOf(pair.config, secrets))).sort(), [
        "A-1",
        "A-2",
        "A-3",
        "A-4"
      ])
    })
  )

  it.effect("a fetch that fails half-way leaves its files to be read again", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      const pair = pairOf(csvConfig(sftpOf(sshd, directory)), secrets)
      // Newest first: 2026-11-01 is read, then the older export's header, over the limit, fails the run.
      yield* Effect.promise(async () => {
        await writeFile(join(directory, "2026-11-01.csv"), csv(["A-1"]))
        await writeFile(join(directory, "2026-10-31.csv"), `${"x".repeat(1_100_000)}\n`)
      })
      const failed = yield* Effect.flip(fetchWith(pair))
      assert.isFalse(failed.retryable)
      yield* Effect.promise(() => writeFile(join(directory, "2026-10-31.csv"), csv(["A-0"])))
      // Nothing of the failed fetch counts as read: both are read now.
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)).sort(), ["A-0", "A-1"])
    })
  )

  it.effect("a file that grows while it is read is read to its end, and read whole again at the next sync", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      const pair = pairOf(csvConfig(sftpOf(sshd, directory)), secrets)
      const first = Array.from({ length: 20_000 }, (_, i) => `K-${i}`)
      const added = Array.from({ length: 50 }, (_, i) => `L-${i}`)
      const path = join(directory, "2026-11-01.csv")
      yield* Effect.promise(() => writeFile(path, csv(first)))
      let appended = false
      const during = yield* File.connector.fetch(pair).pipe(
        // The export grows once the first row has arrived, while the rest is still on the wire.
        Stream.tap(() =>
          appended
            ? Effect.void
            : Effect.promise(async () => {
                appended = true
                await appendFile(path, added.map((key) => `${key},1.00,2026-11-03,approved\n`).join(""))
              })
        ),
        Stream.runCollect
      )
      const keys = keysOf(during)
      assert.strictEqual(new Set(keys).size, keys.length)
      assert.includeMembers(keys, first)
      // It changed since it was listed: the next sync reads it whole, the new rows with it.
      assert.sameMembers(keysOf(yield* fetchWith(pair)), [...first, ...added])
      assert.deepStrictEqual(keysOf(yield* fetchWith(pair)), [])
    })
  )

  it.effect(
    "a file that grows past maxFileBytes while it is read fails the run as retryable; one already over it is reported",
    () =>
      Effect.gen(function* () {
        const { sshd, directory, secrets } = yield* setUp
        const path = join(directory, "2026-11-01.csv")
        const text = csv(Array.from({ length: 20_000 }, (_, i) => `K-${i}`))
        yield* Effect.promise(() => writeFile(path, text))
        const limit = Buffer.byteLength(text) + 100
        const pair = pairOf(csvConfig(sftpOf(sshd, directory, { maxFileBytes: limit })), secrets)
        let appended = false
        const failure = yield* File.connector.fetch(pair).pipe(
          Stream.tap(() =>
            appended
              ? Effect.void
              : Effect.promise(async () => {
                  appended = true
                  await appendFile(path, "x".repeat(10_000))
                })
          ),
          Stream.runDrain,
          Effect.flip
        )
        assert.isTrue(failure.retryable)
        assert.include(failure.message, "grew past")
        assert.include(failure.message, "maxFileBytes")
        // Now over the limit before it is opened: reported, not read, the run goes on.
        const documents = yield* fetchWith(pair)
        assert.strictEqual(documents.length, 1)
        assert.match(
          documents[0]!.unreadable?.[0] ?? "",
          /^2026-11-01\.csv is [\d,]+ bytes, over the .* "maxFileBytes"/
        )
      })
  )

  it.effect(
    "reads a directory of 2,000 files in bounded memory, each once",
    () =>
      Effect.gen(function* () {
        const { sshd, directory, secrets } = yield* setUp
        // 2,000 here keeps the suite fast (each file is three round trips); over 10,000 files, a
        // Peppol inbox of one document a file, are read within the same bound by
        // `npm run bench:inbox` (bench/results/2026-11-29-peppol-inbox.md).
        const count = 2_000
        yield* Effect.promise(async () => {
          for (let first = 0; first < count; first += 500) {
            await Promise.all(
              Array.from({ length: 500 }, (_, i) =>
                writeFile(
                  join(directory, `export-${String(first + i).padStart(5, "0")}.csv`),
                  csv([`${100_000 + first + i}`])
                )
              )
            )
          }
        })
        const gc = collectGarbage()
        gc()
        const baseline = process.memoryUsage().heapUsed
        let peak = 0
        let seen = 0
        let keySum = 0
        yield* File.connector.fetch(pairOf(csvConfig(sftpOf(sshd, directory)), secrets)).pipe(
          Stream.runForEach((document) =>
            Effect.sync(() => {
              seen++
              keySum += Number(document.documentKey)
              if (seen % 1_000 === 0) {
                gc()
                peak = Math.max(peak, process.memoryUsage().heapUsed - baseline)
              }
            })
          )
        )
        assert.strictEqual(seen, count)
        assert.strictEqual(keySum, count * 100_000 + (count * (count - 1)) / 2)
        assert.isAtMost(peak / 2 ** 20, streamingHeapBoundMiB)
      }),
    180_000
  )

  it.effect("reads at most maxFiles files a sync, oldest first, the rest at the next", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      yield* Effect.promise(() =>
        Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            writeFile(join(directory, `export-${String(i).padStart(2, "0")}.csv`), csv([`K-${i}`]))
          )
        )
      )
      const pair = pairOf(csvConfig(sftpOf(sshd, directory, { maxFiles: 10 })), secrets)
      const batches = [] as Array<Array<string>>
      for (let sync = 0; sync < 4; sync++) batches.push(keysOf(yield* fetchWith(pair)).sort())
      const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `K-${from + i}`).sort()
      assert.deepStrictEqual(batches, [expected(0, 10), expected(10, 20), expected(20, 25), []])
    })
  )

  it.effect("a cXML inbox is read whole again when a file arrives, and not at all when none did", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      const pair = pairOf({ sftp: sftpOf(sshd, directory) }, secrets)
      const invoice = {
        key: "INV-7",
        vendorReceivableId: "INV-7",
        amountCents: 125_000,
        amountText: "1250.00",
        currency: "EUR",
        receivableDate: "2026-11-02",
        dueDate: null,
        portalStatus: "processing",
        poNumber: null
      }
      const fetchCxml = Stream.runCollect(Cxml.connector.fetch(pair))
      yield* Effect.promise(async () => {
        await writeFile(join(directory, "invoice-INV-7.xml"), invoiceDocument(invoice))
        await writeFile(
          join(directory, "status-1.xml"),
          statusDocument("INV-7", "2026-11-02", "processing", "2026-11-03T10:00:00+01:00")
        )
      })
      assert.deepStrictEqual(
        [...(yield* fetchCxml)].map((document) => document.portalStatus),
        ["processing"]
      )
      assert.deepStrictEqual([...(yield* fetchCxml)], [])
      yield* Effect.promise(() =>
        writeFile(
          join(directory, "status-2.xml"),
          statusDocument("INV-7", "2026-11-02", "paid", "2026-11-20T10:00:00+01:00")
        )
      )
      assert.deepStrictEqual(
        [...(yield* fetchCxml)].map((document) => [document.documentKey, document.portalStatus]),
        [["INV-7", "paid"]]
      )
      // Over maxFiles, a cXML inbox cannot be read in parts: the run says so.
      const limited = pairOf({ sftp: sftpOf(sshd, directory, { maxFiles: 2 }) }, secrets)
      const failure = yield* Effect.flip(Stream.runCollect(Cxml.connector.fetch(limited)))
      assert.isFalse(failure.retryable)
      assert.include(failure.message, '"maxFiles"')
    })
  )

  it.effect("a Peppol inbox syncs over SFTP: read whole again when a response arrives, not at all when none did", () =>
    Effect.gen(function* () {
      const { sshd, directory, secrets } = yield* setUp
      const pair = pairOf({ sftp: sftpOf(sshd, directory) }, secrets)
      const invoice = sampleDocuments(
        1,
        [["sent", "PENDING"]],
        { decimalSeparator: ".", groupsThousands: false },
        true
      ).at(0)
      const fetchPeppol = Effect.map(Stream.runCollect(Peppol.connector.fetch(pair)), (documents) =>
        [...documents].map((document) => [document.documentKey, document.portalStatus, document.amountCents])
      )
      yield* Effect.promise(async () => {
        await writeFile(join(directory, "invoice.xml"), peppolInvoice(invoice))
        await writeFile(
          join(directory, "response-1.xml"),
          responseDocument(invoice.key, invoice.receivableDate, "AP", { date: "2026-11-05", time: "10:00:00" })
        )
      })
      assert.deepStrictEqual(yield* fetchPeppol, [[invoice.key, "AP Accepted", invoice.amountCents]])
      assert.deepStrictEqual(yield* fetchPeppol, [])
      // The payment's response arrives in a file of its own: the invoice, in another, is read again with it.
      yield* Effect.promise(() =>
        writeFile(
          join(directory, "response-2.xml"),
          responseDocument(invoice.key, invoice.receivableDate, "PD", { date: "2026-11-20", time: "10:00:00" })
        )
      )
      assert.deepStrictEqual(yield* fetchPeppol, [[invoice.key, "PD Paid", invoice.amountCents]])
      // A server presenting another host key is refused before signing in: no sign-in is logged for it.
      const signIns = () => sshd.log().match(/Accepted|Failed|Invalid user/g)?.length ?? 0
      const before = signIns()
      const other = yield* keyPair(directory, "other_ed25519")
      const refused = yield* Effect.flip(
        Stream.runCollect(
          Peppol.connector.fetch(pairOf({ sftp: sftpOf(sshd, directory, { hostKey: other.fingerprint }) }, secrets))
        )
      )
      assert.isFalse(refused.retryable)
      assert.include(refused.message, "not the pinned one")
      assert.strictEqual(signIns(), before)
    })
  )

  it.effect("never puts a password or a private key in a message", () =>
    Effect.gen(function* () {
      const { sshd, directory } = yield* setUp
      const password = "correct-horse-battery-staple-7731"
      const refused = yield* Effect.flip(
        fetchWith(
          pairOf(csvConfig(withPassword(sftpOf(sshd, directory))), {
            SFTP_PASSWORD: password
          })
        )
      )
      assert.isFalse(refused.retryable)
      assert.include(refused.message, "refused the credentials", refused.message)
      assert.notInclude(JSON.stringify(refused), password)
      const garbage =
        "-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbC0xMjM0NQ==\n-----END OPENSSH PRIVATE KEY-----"
      const unreadableKey = yield* Effect.flip(
        fetchWith(pairOf(csvConfig(sftpOf(sshd, directory)), { [clientKeyVariable]: garbage }))
      )
      assert.isFalse(unreadableKey.retryable)
      assert.include(unreadableKey.message, "private key cannot be read")
      assert.notInclude(JSON.stringify(unreadableKey), "c2VjcmV0")
      const stranger = yield* keyPair(directory, "stranger_ed25519")
      const notAuthorized = yield* Effect.flip(
        fetchWith(pairOf(csvConfig(sftpOf(sshd, directory)), { [clientKeyVariable]: stranger.privateKey }))
      )
      assert.include(notAuthorized.message, "refused the credentials")
      assert.notInclude(JSON.stringify(notAuthorized), stranger.privateKey.split("\n")[1]!)
      // A server that is not there may come back: retryable.
      const gone = yield* Effect.flip(
        fetchWith(pairOf(csvConfig(sftpOf(sshd, directory, { port: 1 })), { [clientKeyVariable]: sshd.clientKey }))
      )
      assert.isTrue(gone.retryable)
    })
  )

  it("refuses configurations naming the field: both or neither source, a pasted secret, no credential, an unpinned key", () => {
    const sftp = {
      host: "sftp.example",
      user: "acme",
      privateKey: { env: "KEY" },
      directory: "/out",
      hostKey: "SHA256:RDvuUNA0ZKaaeGbDW27V8V4h9VIiw1vKB4/Mc09gUBA"
    }
    const refusals = [
      [{ ...csvConfig(sftp), directory: "/srv/exports" }, "directory"],
      [{ ...csvConfig(sftp), sftp: undefined }, "directory"],
      [csvConfig({ ...sftp, privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----" }), "sftp.privateKey"],
      [csvConfig({ ...sftp, privateKey: undefined }), "sftp.privateKey"],
      [csvConfig({ ...sftp, password: { env: "PASSWORD" } }), "sftp.privateKey"],
      [csvConfig({ ...sftp, hostKey: "yes" }), "sftp.hostKey"],
      [csvConfig({ ...sftp, maxFiles: 0 }), "sftp.maxFiles"]
    ] as const
    for (const [config, field] of refusals) {
      const outcome = validateConfig(File.connector, JSON.parse(JSON.stringify(config)))
      assert.isTrue(Result.isFailure(outcome), field)
      if (Result.isFailure(outcome)) assert.strictEqual(outcome.failure.field, field)
    }
    assert.isTrue(Result.isSuccess(validateConfig(File.connector, csvConfig(sftp))))
    const cxmlRefusal = validateConfig(Cxml.connector, { inbox: "/srv/cxml", sftp })
    assert.isTrue(Result.isFailure(cxmlRefusal) && cxmlRefusal.failure.field === "inbox")
    assert.isTrue(Result.isSuccess(validateConfig(Cxml.connector, { sftp })))
    const peppolRefusal = validateConfig(Peppol.connector, { inbox: "/srv/peppol", sftp })
    assert.isTrue(Result.isFailure(peppolRefusal) && peppolRefusal.failure.field === "inbox")
    assert.isTrue(Result.isSuccess(validateConfig(Peppol.connector, { sftp })))
  })

  it("a host key matches its own pin, by fingerprint or by key line, and no other key", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 120 }),
        fc.uint8Array({ minLength: 32, maxLength: 120 }),
        fc.constantFrom("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256"),
        (key, other, type) => {
          const line = `${type} ${Buffer.from(key).toString("base64")} host.example`
          assert.isTrue(hostKeyMatches(fingerprintOf(key), key))
          assert.isTrue(hostKeyMatches(`${fingerprintOf(key)}=`, key))
          assert.isTrue(hostKeyMatches(line, key))
          const same = Buffer.from(key).equals(Buffer.from(other))
          assert.strictEqual(hostKeyMatches(fingerprintOf(key), other), same)
          assert.strictEqual(hostKeyMatches(line, other), same)
        }
      )
    ))
})
