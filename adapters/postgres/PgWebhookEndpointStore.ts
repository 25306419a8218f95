/**
 * `WebhookEndpointStore` over PostgreSQL (migration 0017): `webhook_endpoints`, every statement
 * filtering by `org_id`. Enabling makes the endpoint's waiting deliveries due in the transaction
 * that enables it; removing deletes its deliveries and attempts with it (the foreign keys cascade).
 * Secrets are read only by `secrets`.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { type WebhookEndpointId, WebhookEndpointLimitReached } from "../../core/webhooks/domain/Webhooks.ts"
import {
  type EndpointChange,
  type NewEndpoint,
  WebhookEndpointStore
} from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { texts } from "./PgPairRows.ts"
import { type EndpointRow, endpointColumns, type SecretsRow, toEndpoint, toSecrets } from "./PgWebhookRows.ts"

const date = DateTime.toDateUtc

export const layer = Layer.effect(
  WebhookEndpointStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const endpointFields = sql.literal(endpointColumns)

    // The organization's row is locked while its endpoints are counted and the endpoint is added,
    // so creations at the bound take turns and only those it leaves room for pass. The count is a
    // statement of its own: under READ COMMITTED it then sees what the lock's previous holder added.
    // `NO KEY UPDATE` leaves the organization's row free to the foreign-key checks of other writes.
    const create = Effect.fn("PgWebhookEndpointStore.create")(
      function* (input: NewEndpoint) {
        yield* sql`SELECT 1 FROM organizations WHERE id = ${input.orgId} FOR NO KEY UPDATE`
        const [held] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM webhook_endpoints WHERE org_id = ${input.orgId}`
        if (held!.count >= input.maxPerOrganization) {
          return yield* new WebhookEndpointLimitReached({ limit: input.maxPerOrganization })
        }
        // The cursor starts at the organization's newest event: the endpoint receives what follows.
        const [row] = yield* sql<EndpointRow>`
        INSERT INTO webhook_endpoints (id, org_id, url, description, event_types, enabled, disabled_reason, disabled_at,
          secret, cursor, fanned_out_at, created_at, updated_at)
        VALUES (${input.id}, ${input.orgId}, ${input.url}, ${input.description}, ${texts(input.eventTypes)}::text[],
          ${input.enabled}, ${input.enabled ? null : "manual"}, ${input.enabled ? null : date(input.at)},
          ${input.sealedSecret},
          coalesce((SELECT last_sequence FROM event_counters WHERE org_id = ${input.orgId}), 0),
          ${date(input.at)}, ${date(input.at)}, ${date(input.at)})
        RETURNING ${endpointFields}`
        return toEndpoint(row!)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const list = Effect.fn("PgWebhookEndpointStore.list")(function* (
      org: OrgId,
      page: { readonly after?: string | undefined; readonly limit: number }
    ) {
      const rows = yield* sql<EndpointRow>`
        SELECT ${endpointFields} FROM webhook_endpoints
        WHERE org_id = ${org} ${page.after === undefined ? sql`` : sql`AND id > ${page.after}`}
        ORDER BY id LIMIT ${page.limit + 1}`.pipe(Effect.orDie)
      return { items: rows.slice(0, page.limit).map(toEndpoint), hasMore: rows.length > page.limit }
    })

    const find = Effect.fn("PgWebhookEndpointStore.find")(function* (org: OrgId, id: WebhookEndpointId) {
      const rows = yield* sql<EndpointRow>`
        SELECT ${endpointFields} FROM webhook_endpoints WHERE org_id = ${org} AND id = ${id}`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toEndpoint)
    })

    const update = Effect.fn("PgWebhookEndpointStore.update")(function* (
      org: OrgId,
      id: WebhookEndpointId,
      change: EndpointChange,
      at: DateTime.Utc
    ) {
      const enabled = change.enabled
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql<EndpointRow>`
              UPDATE webhook_endpoints SET
                url = coalesce(${change.url ?? null}, url),
                description = ${change.description === undefined ? sql`description` : sql`${change.description}`},
                event_types = ${change.eventTypes === undefined ? sql`event_types` : sql`${texts(change.eventTypes)}::text[]`},
                ${
                  enabled === undefined
                    ? sql``
                    : enabled.enabled
                      ? sql`enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,`
                      : sql`enabled = false, disabled_reason = ${enabled.reason}, disabled_at = ${date(at)},`
                }
                updated_at = ${date(at)}
              WHERE org_id = ${org} AND id = ${id}
              RETURNING ${endpointFields}`
            // What waited for the endpoint is due now rather than at the back-off its failures set.
            if (rows.length > 0 && enabled?.enabled === true) {
              yield* sql`
                UPDATE webhook_deliveries SET next_attempt_at = ${date(at)}
                WHERE org_id = ${org} AND endpoint_id = ${id} AND status = 'pending' AND next_attempt_at > ${date(at)}`
            }
            return Option.map(Option.fromNullishOr(rows[0]), toEndpoint)
          })
        )
        .pipe(Effect.orDie)
    })

    const remove = Effect.fn("PgWebhookEndpointStore.remove")(function* (org: OrgId, id: WebhookEndpointId) {
      const rows = yield* sql`DELETE FROM webhook_endpoints WHERE org_id = ${org} AND id = ${id} RETURNING id`.pipe(
        Effect.orDie
      )
      return rows.length > 0
    })

    const rotate = Effect.fn("PgWebhookEndpointStore.rotate")(function* (
      org: OrgId,
      id: WebhookEndpointId,
      sealed: string,
      previousUntil: DateTime.Utc,
      at: DateTime.Utc
    ) {
      const rows = yield* sql<EndpointRow>`
        UPDATE webhook_endpoints SET previous_secret = secret, secret = ${sealed},
          previous_secret_expires_at = ${date(previousUntil)}, updated_at = ${date(at)}
        WHERE org_id = ${org} AND id = ${id}
        RETURNING ${endpointFields}`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toEndpoint)
    })

    const secrets = Effect.fn("PgWebhookEndpointStore.secrets")(function* (org: OrgId, id: WebhookEndpointId) {
      const rows = yield* sql<SecretsRow>`
        SELECT secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints
        WHERE org_id = ${org} AND id = ${id}`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toSecrets)
    })

    return WebhookEndpointStore.of({ create, list, find, update, remove, rotate, secrets })
  })
)
