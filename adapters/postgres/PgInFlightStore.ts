/**
 * `InFlightStore` over PostgreSQL: each process holds leased shares of the budgets in flight in
 * `in_flight_shares` (migration 0030) and admits within them on its own
 * (`core/access/services/LeasedInFlight.ts`), so that the caps hold across every process on the
 * database while a request costs a statement only when its process's share must grow. A grant is
 * one call of `grant_in_flight_shares`, a renewal one statement for all of a process's shares:
 * both run as they are behind a transaction-mode pooler.
 */
import { randomUUID } from "node:crypto"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { InFlightShareStore } from "../../core/access/ports/InFlightShareStore.ts"
import { InFlightStoreUnavailable } from "../../core/access/ports/InFlightStore.ts"
import * as LeasedInFlight from "../../core/access/services/LeasedInFlight.ts"
import { innermostMessage } from "./Database.ts"
import { texts } from "./PgPairRows.ts"

/**
 * A dead process's shares return this long after its last renewal at most; renewed every
 * `heartbeat`, so that a renewal may fail three times in a row before a lease ends.
 */
export const timing: LeasedInFlight.LeaseTiming = { lease: Duration.seconds(5), heartbeat: Duration.seconds(1) }

const unavailable = (error: unknown) => new InFlightStoreUnavailable({ message: innermostMessage(error) })

const seconds = (lease: Duration.Duration) => Duration.toSeconds(lease)

export const shareStore = Layer.effect(
  InFlightShareStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return InFlightShareStore.of({
      grant: (process, owner, need, want, caps, lease) =>
        sql<{ key_share: number; org_share: number; short: "key" | "organization" | null }>`
          SELECT key_share, org_share, short FROM grant_in_flight_shares(${process}::uuid, ${owner.orgId}::uuid,
            ${owner.keyId}::uuid, ${need.key}::integer, ${need.organization}::integer, ${want.key}::integer,
            ${want.organization}::integer, ${caps.perKey}::integer,
            ${caps.perOrganization}::integer, make_interval(secs => ${seconds(lease)}::float8))`.pipe(
          Effect.mapError(unavailable),
          Effect.map(([row]) => ({ key: row!.key_share, organization: row!.org_share, short: row!.short })),
          Effect.withSpan("PgInFlightStore.grant")
        ),
      renew: (process, needs, lease) =>
        sql<{ owner: string; share: number }>`
          WITH needs AS (
            SELECT * FROM unnest(${texts(needs.map((n) => n.orgId))}::uuid[], ${texts(needs.map((n) => n.owner))}::uuid[],
              ${texts(needs.map((n) => String(n.share)))}::integer[]) AS n (org_id, owner, share)
          ), returned AS (
            DELETE FROM in_flight_shares s USING needs n
            WHERE s.org_id = n.org_id AND s.owner = n.owner AND s.process_id = ${process}::uuid AND n.share = 0
          )
          UPDATE in_flight_shares s SET share = least(s.share, n.share),
            expires_at = clock_timestamp() + make_interval(secs => ${seconds(lease)}::float8)
          FROM needs n
          WHERE s.org_id = n.org_id AND s.owner = n.owner AND s.process_id = ${process}::uuid AND n.share > 0
            AND s.expires_at > clock_timestamp()
          RETURNING s.owner, s.share`.pipe(
          Effect.mapError(unavailable),
          Effect.map((rows) => new Map(rows.map((row) => [row.owner, row.share]))),
          Effect.withSpan("PgInFlightStore.renew")
        ),
      release: (process, orgIds) =>
        sql`DELETE FROM in_flight_shares WHERE org_id = ANY(${texts(orgIds)}::uuid[]) AND process_id = ${process}::uuid`.pipe(
          Effect.mapError(unavailable),
          Effect.asVoid,
          Effect.withSpan("PgInFlightStore.release")
        )
    })
  })
)

/** A process's store, its shares leased as `leases` says, under a name of its own each time it is built. */
export const layerWith = (leases: LeasedInFlight.LeaseTiming) =>
  Layer.unwrap(Effect.sync(() => LeasedInFlight.layer(randomUUID(), leases))).pipe(Layer.provide(shareStore))

export const layer = layerWith(timing)
