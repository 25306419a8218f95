/**
 * Why a sync run failed, as the API's consumers are told it: a class from a closed set and a
 * fixed sentence for it. The run's recorded detail is written for operators (the portal's
 * address and port, a file's path, a driver's words) and stays with them (the CLI, the logs); no
 * part of it reaches a consumer. The class is read from the phrases the connectors and the sync
 * engine write; a detail none of them matches is `sync_failed`, which still says nothing more.
 * Pure.
 */
import { Schema } from "effect"

export const RunErrorClass = Schema.Literals([
  "portal_unreachable",
  "portal_timeout",
  "portal_rate_limited",
  "portal_credentials_refused",
  "portal_error",
  "portal_answer_unreadable",
  "export_unreadable",
  "secret_unavailable",
  "configuration_invalid",
  "deadline_exceeded",
  "sync_failed"
])
export type RunErrorClass = typeof RunErrorClass.Type

/** The sentence a consumer is shown for each class: nothing of the run's own detail. */
export const consumerMessages: Readonly<Record<RunErrorClass, string>> = {
  portal_unreachable: "The debtor's portal could not be reached; the sync is retried.",
  portal_timeout: "The debtor's portal did not answer in time; the sync is retried.",
  portal_rate_limited: "The debtor's portal asked for fewer requests; the sync waits as asked, then is retried.",
  portal_credentials_refused: "The debtor's portal refused the integration's credentials; an operator must renew them.",
  portal_error: "The debtor's portal answered with an error.",
  portal_answer_unreadable: "The debtor's portal answered in a form the service cannot read.",
  export_unreadable: "The portal's export could not be read.",
  secret_unavailable: "A credential the integration needs is not available; an operator must provide it.",
  configuration_invalid: "The integration's configuration needs an operator's attention.",
  deadline_exceeded: "The sync did not finish within its deadline; it is retried.",
  sync_failed: "The sync failed; it is retried, and the service's operators can see why."
}

// The first pattern that matches a recorded detail decides its class; the order puts the
// specific before the general (a deadline's message names no portal; a 401 is not any status).
const rules: ReadonlyArray<readonly [RegExp, RunErrorClass]> = [
  [/did not finish within its deadline/, "deadline_exceeded"],
  [/\bcannot be reached\b/, "portal_unreachable"],
  [/\bdid not answer within\b/, "portal_timeout"],
  [/\bis rate limiting us\b/, "portal_rate_limited"],
  [/\brefused the credentials\b/, "portal_credentials_refused"],
  [/^(?:environment variable|secrets file) .* (?:is not set|cannot be read)$/, "secret_unavailable"],
  [
    /\bnot JSON\b|\banswered text that is not valid\b|\banswered more than\b|\bdid not answer a list\b|\bgave no access token\b|\bredirects\b/,
    "portal_answer_unreadable"
  ],
  [
    /\bcannot be read\b|\bits header row\b|\bunchanged for more than\b|\bmay still be being written\b/,
    "export_unreadable"
  ],
  [/\banswered \d{3}\b/, "portal_error"],
  [/configuration|no connector of kind|check the pagination settings|\brefused to contact\b/, "configuration_invalid"]
]

/** The class of a run's recorded failure. */
export const classOf = (detail: string): RunErrorClass =>
  rules.find(([pattern]) => pattern.test(detail))?.[1] ?? "sync_failed"

/** A run's failure as consumers see it: its class and that class's sentence; nulls for a run that did not fail. */
export const forConsumers = (
  detail: string | null
): { readonly error: string | null; readonly errorClass: RunErrorClass | null } => {
  if (detail === null) return { error: null, errorClass: null }
  const errorClass = classOf(detail)
  return { error: consumerMessages[errorClass], errorClass }
}
