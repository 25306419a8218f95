/**
 * Forward-only schema migrations, run at start by the Effect SQL migrator inside one transaction
 * under a table lock, so concurrent starts apply each migration exactly once. A landed migration
 * is never edited: add the next numbered file instead.
 */
import { Effect, Layer } from "effect"
import { Migrator } from "effect/sql"
import initial from "./migrations/0001_initial.ts"
import auditAppendOnly from "./migrations/0002_audit_append_only.ts"
import apiKeyRevocationNotify from "./migrations/0003_api_key_revocation_notify.ts"
import leanOutbox from "./migrations/0004_lean_outbox.ts"
import outboxInSequence from "./migrations/0005_outbox_in_sequence.ts"
import jsonAsWritten from "./migrations/0006_json_as_written.ts"

export const migrationsTable = "schema_migrations"

const migrations = {
  "0001_initial": initial,
  "0002_audit_append_only": auditAppendOnly,
  "0003_api_key_revocation_notify": apiKeyRevocationNotify,
  "0004_lean_outbox": leanOutbox,
  "0005_outbox_in_sequence": outboxInSequence,
  "0006_json_as_written": jsonAsWritten
}

const loader = Migrator.fromRecord(migrations)

/** The migration this build expects the database to be at. */
export const latestMigrationId = Math.max(...Object.keys(migrations).map((name) => Number(name.split("_")[0])))

/** Applies the pending migrations; returns the ones it applied. */
export const migrate = Migrator.make({})({ loader, table: migrationsTable })

/** Migrates when built; the app's layers start only on an up-to-date schema. */
export const layer = Layer.effectDiscard(migrate.pipe(Effect.withSpan("Migrations.migrate")))
