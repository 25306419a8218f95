/**
 * A database that stops answering, as a test makes one: another connection holds `table` locked
 * (`ACCESS EXCLUSIVE`) until the returned effect releases it, so every statement touching the table
 * waits meanwhile, neither succeeding nor failing.
 */
import { Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"

export const lockTable = (table: "audit_log" | "receivables" | "sync_runs") =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const unlock = yield* Deferred.make<void>()
    const holder = yield* Effect.forkChild(
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`LOCK TABLE ${sql(table)} IN ACCESS EXCLUSIVE MODE`
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(unlock)
        })
      )
    )
    yield* Deferred.await(locked)
    return Effect.andThen(Deferred.succeed(unlock, undefined), Fiber.join(holder))
  })
