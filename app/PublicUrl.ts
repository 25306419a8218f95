/**
 * Where people reach the service (`PUBLIC_URL`), for the links printed elsewhere than in a page
 * (the CLI's invites and the demo's welcome) and for the dashboard's cookie, always `Secure` when
 * this is `https://`. Kept apart from the HTTP wiring so that the CLI can read it without loading
 * the server.
 */
import { Config, Effect, Schema } from "effect"
import * as AppConfig from "./Config.ts"

export const publicUrl = Config.schema(
  Schema.String.check(Schema.isPattern(/^https?:\/\/[^/\s]+$/)).annotate({
    expected: "a scheme and a host, e.g. https://receivables.example.com"
  }),
  "PUBLIC_URL"
).pipe(Config.withDefault(""))

/** `PUBLIC_URL`, or this machine at the listener's port. */
export const baseUrl = Effect.gen(function* () {
  const configured = yield* publicUrl
  if (configured !== "") return configured
  const { port } = yield* AppConfig.http
  return `http://localhost:${port}`
})

/** The link that sets a password through an invite. */
export const inviteLink = (base: string, token: string) => `${base}/dashboard/invite/${token}`
