/**
 * `InFlightStore` over PostgreSQL: a row of `requests_in_flight` per request being answered
 * (migration 0016), taken by `admit_request_in_flight` in one statement and deleted when the
 * request is done, so that the caps hold across every process on the database. A row carries a
 * lease: a process that dies leaves its rows, and they stop counting when the lease ends. The lease
 * is the request deadline and a margin, since no request is answered longer. A row whose delete
 * failed (the database unreachable) is deleted again before this process's next admission: left to
 * its lease, the places held by the requests an outage cut off would refuse the first requests
 * after it (429) for as long as the lease.
 */
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { InFlightStore, InFlightStoreUnavailable } from "../../core/access/ports/InFlightStore.ts"
import { innermostMessage } from "./Database.ts"
import { texts } from "./PgPairRows.ts"

/** Past the request deadline, for the answer to leave and its row to be deleted. */
export const leaseMargin = Duration.seconds(5)

/** How long a release may take before it is left to the lease: it delays the request's answer. */
const releaseTimeout = Duration.seconds(2)

const unavailable = (error: unknown) => new InFlightStoreUnavailable({ message: innermostMessage(error) })

/** The store whose rows are leased for `lease`. */
export const layerWith = (lease: Duration.Duration) =>
  Layer.effect(
    InFlightStore,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const leaseSeconds = Duration.toSeconds(lease)
      /** Rows whose delete failed, deleted again before the next admission. */
      const unreleased = new Set<string>()
      const release = (id: string) =>
        sql`DELETE FROM requests_in_flight WHERE id = ${id}`.pipe(
          Effect.timeout(releaseTimeout),
          Effect.catchCause(() => Effect.sync(() => unreleased.add(id))),
          Effect.asVoid,
          Effect.withSpan("PgInFlightStore.release")
        )
      const releaseLeftovers = Effect.suspend(() => {
        if (unreleased.size === 0) return Effect.void
        const ids = [...unreleased]
        return sql`DELETE FROM requests_in_flight WHERE id = ANY(${texts(ids)}::uuid[])`.pipe(
          Effect.timeout(releaseTimeout),
          Effect.tap(() =>
            Effect.sync(() => {
              for (const id of ids) unreleased.delete(id)
            })
          ),
          Effect.ignore,
          Effect.withSpan("PgInFlightStore.releaseLeftovers")
        )
      })
      return InFlightStore.of({
        admit: (owner, caps) =>
          Effect.andThen(
            releaseLeftovers,
            sql<{ admitted: string | null; refused: "key" | "organization" | null }>`
            SELECT admitted, refused FROM admit_request_in_flight(${owner.orgId}::uuid, ${owner.keyId}::uuid,
              ${caps.perKey}::integer, ${caps.perOrganization}::integer, make_interval(secs => ${leaseSeconds}::float8))`.pipe(
              Effect.mapError(unavailable),
              Effect.map(([row]) =>
                row!.admitted !== null
                  ? ({ _tag: "Admitted", release: release(row!.admitted) } as const)
                  : ({ _tag: "Refused", scope: row!.refused! } as const)
              ),
              Effect.withSpan("PgInFlightStore.admit")
            )
          )
      })
    })
  )
