/**
 * Secrets from where deployments put them: environment variables, and files such as Docker or
 * Kubernetes secrets mounts (read at each use, so a rotated file takes effect at the next sync;
 * one trailing line break, as editors and `echo` leave, is not part of the secret).
 */
import { readFile } from "node:fs/promises"
import { Effect, Layer, Redacted } from "effect"
import { describeReference, type SecretReference, Secrets, SecretUnavailable } from "../../core/shared/ports/Secrets.ts"

const unavailable = (reference: SecretReference, why: string) =>
  new SecretUnavailable({ message: `${describeReference(reference)} ${why}` })

/** Reads references against the given environment (the process's own in the app; a fixed one in tests). */
export const resolverOf = (environment: Readonly<Record<string, string | undefined>>) => (reference: SecretReference) =>
  "env" in reference
    ? Effect.suspend(() => {
        const value = environment[reference.env]
        return value === undefined || value === ""
          ? Effect.fail(unavailable(reference, "is not set"))
          : Effect.succeed(Redacted.make(value))
      })
    : Effect.tryPromise({
        try: () => readFile(reference.file, "utf8"),
        catch: () => unavailable(reference, "cannot be read")
      }).pipe(
        Effect.map((text) => text.replace(/\r?\n$/, "")),
        Effect.filterOrFail(
          (text) => text !== "",
          () => unavailable(reference, "is empty")
        ),
        Effect.map((text) => Redacted.make(text))
      )

export const layer = Layer.succeed(Secrets, Secrets.of({ resolve: resolverOf(process.env) }))
