/**
 * Connector credentials are never part of an integration's configuration: the configuration
 * names where the secret is (an environment variable or a secrets file, as container platforms
 * mount them) and the secret is read at the moment of a fetch, so it is never stored, rotates
 * without touching the database, and stays `Redacted` until the connector puts it on the wire.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"

const EnvironmentVariable = Schema.String.check(
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { expected: "an environment variable name" })
)

export const SecretReference = Schema.Union([
  Schema.Struct({ env: EnvironmentVariable }),
  Schema.Struct({ file: Schema.String.check(Schema.isNonEmpty({ expected: "the path of a secrets file" })) })
]).annotate({
  description: 'Where a secret is: {"env": "VARIABLE"} or {"file": "/run/secrets/name"}; never the secret itself'
})
export type SecretReference = typeof SecretReference.Type

/** Names a reference in messages and logs; the secret itself is never described. */
export const describeReference = (reference: SecretReference): string =>
  "env" in reference ? `environment variable ${reference.env}` : `secrets file ${reference.file}`

export class SecretUnavailable extends Schema.TaggedError<SecretUnavailable>()("SecretUnavailable", {
  message: Schema.String
}) {}

export class Secrets extends Context.Service<
  Secrets,
  { readonly resolve: (reference: SecretReference) => Effect.Effect<Redacted.Redacted<string>, SecretUnavailable> }
>()("core/Secrets") {}
