/**
 * Verifies a presented API key and says whose it is. Implementations compare hashes only; the
 * key itself is never stored or logged.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"
import type { OrgId } from "../domain/Ids.ts"

export interface KeyOwner {
  readonly keyId: string
  readonly orgId: OrgId
}

export class ApiKeyRejected extends Schema.TaggedError<ApiKeyRejected>()("ApiKeyRejected", {
  reason: Schema.Literals(["invalid", "revoked"])
}) {}

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    readonly verify: (key: Redacted.Redacted<string>) => Effect.Effect<KeyOwner, ApiKeyRejected>
  }
>()("core/ApiKeys") {}
