/**
 * A write that stalls is bounded, and entries a stop cannot commit are not dropped: with the database unable to take them (another
 * connection holds the audit table), a stopping log spools them to disk, and the next log started
 * with the same folder commits them and deletes the file. A spooled file is claimed by one reader.
 */
import { randomUUID } from "node:crypto"
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as AuditSpool from "../../../adapters/postgres/AuditSpool.ts"
import * as PgAuditLog from "../../../adapters/postgres/PgAuditLog.ts"
import { type AuditEntry, AuditLog } from "../../../core/access/ports/AuditLog.ts"
import { eventually } from "../../support/Eventually.ts"
import { lockTable } from "../../support/TableLock.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const entry = (requestId: string): AuditEntry => ({
  at: DateTime.makeUnsafe(Date.now()),
  requestId,
  keyId: null,
  orgId: null,
  method: "GET",
  path: "/v1/vendors",
  query: "",
  status: 200,
  durationMs: 1,
  clientAddress: "127.0.0.1"
})

const temporaryDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "audit-spool-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** A log of its own, started in a scope this test closes: a process's life. */
const startLog = (spoolDir: string, stalledWrite?: Duration.Duration) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      PgAuditLog.layerWith({ spoolDir, stopWait: Duration.millis(200), stalledWrite }),
      scope
    )
    return { audit: context.mapUnsafe.get(AuditLog.key) as AuditLog["Service"], stop: Scope.close(scope, Exit.void) }
  })

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("the audit spool", (it) => {
  it.effect("a stop while the database cannot take kept entries spools them; the next start commits them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const dir = yield* temporaryDir
        const ids = Array.from({ length: 3 }, () => `req_${randomUUID()}`)
        const unlock = yield* lockTable("audit_log")
        const first = yield* startLog(dir)
        for (const id of ids) yield* first.audit.keep(entry(id))
        yield* first.stop
        const files = yield* Effect.promise(() => readdir(dir))
        assert.lengthOf(files, 1, "one spool file")
        yield* unlock

        const second = yield* startLog(dir)
        yield* eventually(
          "the spooled entries committed",
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log WHERE request_id IN ${sql.in(ids)}`,
            ([row]) => row?.n === ids.length
          )
        )
        yield* eventually(
          "the spool file deleted",
          Effect.map(
            Effect.promise(() => readdir(dir)),
            (left) => left.length === 0
          )
        )
        yield* second.stop
      })
    )
  )

  it.effect(
    "a write that stalls past its bound counts as failed: its entry is kept and written once the database answers",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const dir = yield* temporaryDir
          const id = `req_${randomUUID()}`
          const unlock = yield* lockTable("audit_log")
          const log = yield* startLog(dir, Duration.millis(300))
          const recorded = yield* Effect.exit(log.audit.record(entry(id)))
          assert.isTrue(Exit.isFailure(recorded), "the stalled write failed, not hung")
          yield* log.audit.keep(entry(id))
          yield* unlock
          yield* eventually(
            "the kept entry committed",
            Effect.map(
              sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log WHERE request_id = ${id}`,
              ([row]) => row?.n === 1
            )
          )
          yield* log.stop
        })
      )
  )

  it.effect("a spooled file is committed by one of two readers, and released when its commit fails", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* temporaryDir
        yield* AuditSpool.write(dir, [{ request_id: "a" }, { request_id: "b" }])
        const refused = yield* AuditSpool.drain(dir, () => Effect.fail("down"))
        assert.strictEqual(refused, 0)
        assert.lengthOf(yield* Effect.promise(() => readdir(dir)), 1, "released for a later try")
        const seen: Array<unknown> = []
        const commit = (entries: ReadonlyArray<AuditSpool.SpooledEntry>) => Effect.sync(() => seen.push(...entries))
        const counts = yield* Effect.all([AuditSpool.drain(dir, commit), AuditSpool.drain(dir, commit)], {
          concurrency: "unbounded"
        })
        assert.strictEqual(counts[0] + counts[1], 2)
        assert.deepStrictEqual(seen, [{ request_id: "a" }, { request_id: "b" }])
        assert.lengthOf(yield* Effect.promise(() => readdir(dir)), 0)
      })
    )
  )

  it.effect(
    "a claim left by a process that died is taken over once stale, a fresh one is not; an unreadable file is set aside",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* temporaryDir
          const seen: Array<unknown> = []
          const commit = (entries: ReadonlyArray<AuditSpool.SpooledEntry>) => Effect.sync(() => seen.push(...entries))
          yield* Effect.promise(async () => {
            // Claims named as another process names them (pid 1 in a container, whatever this one's is).
            await writeFile(join(dir, "audit-0a.jsonl.00000000000a.claimed"), '{"request_id":"stale"}\n')
            const old = new Date(Date.now() - 3_600_000)
            await utimes(join(dir, "audit-0a.jsonl.00000000000a.claimed"), old, old)
            await writeFile(join(dir, "audit-0b.jsonl.00000000000b.claimed"), '{"request_id":"in progress"}\n')
            await writeFile(join(dir, "audit-0c.jsonl"), "not json\n")
          })
          assert.strictEqual(yield* AuditSpool.drain(dir, commit), 1)
          assert.deepStrictEqual(seen, [{ request_id: "stale" }])
          assert.sameMembers(yield* Effect.promise(() => readdir(dir)), [
            "audit-0b.jsonl.00000000000b.claimed",
            "audit-0c.jsonl.unreadable"
          ])
        })
      )
  )
})
