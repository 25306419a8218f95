/** Why the embedded PostgreSQL could not be prepared, started or stopped, in one sentence. */
import { Schema } from "effect"

export class EmbeddedPostgresError extends Schema.TaggedError<EmbeddedPostgresError>()("EmbeddedPostgresError", {
  message: Schema.String
}) {}
