/**
 * `status explain "<text>" [--connector <kind>] [--json]`: how the service normalizes a portal's
 * status text, which step decided (a connector's mapping, a researched wording with its product and
 * source, or a named rule) and why. Pure: it needs no database.
 */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { explainStatus, type StatusExplanation } from "../../core/receivables/domain/Status.ts"
import { DirectoryRefused } from "../../core/receivables/services/Directory.ts"
import { print } from "./Common.ts"

const decidedBy = (explanation: StatusExplanation) => {
  switch (explanation.step) {
    case "connector":
      return "the connector's own mapping"
    case "table":
      return `the researched vocabulary (${explanation.entry.product})`
    case "label":
      return "the status label itself"
    case "rule":
      return `the rule "${explanation.rule}"`
    case "unknown":
      return "no rule: unknown texts are ACKNOWLEDGED"
  }
}

const asJson = (explanation: StatusExplanation, connector: string | null) => ({
  text: explanation.text,
  canonical: explanation.canonical,
  status: explanation.status,
  step: explanation.step,
  connector,
  rule: explanation.step === "rule" ? explanation.rule : null,
  entry:
    explanation.step === "table"
      ? {
          product: explanation.entry.product,
          source: explanation.entry.source,
          text: explanation.entry.text,
          reason: explanation.entry.reason ?? null
        }
      : null,
  words: explanation.step === "rule" || explanation.step === "unknown" ? explanation.words : null,
  reason: explanation.reason
})

const explain = Command.make(
  "explain",
  {
    text: Argument.String("text").pipe(Argument.withDescription("The portal's status text, as the portal writes it")),
    connector: Flag.String("connector").pipe(
      Flag.withDescription("Apply this connector's own mapping first (a connector's kind, e.g. cxml or coupa)"),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("Print JSON for scripts"), Flag.withDefault(false))
  },
  Effect.fn(function* ({ text, connector, json }) {
    const kind = Option.getOrUndefined(connector)
    // The connectors (and their parsers) load only when one is named.
    const all =
      kind === undefined ? [] : (yield* Effect.promise(() => import("../../adapters/portals/Connectors.ts"))).all
    const found = all.find((c) => c.kind === kind)
    if (kind !== undefined && found === undefined) {
      const known = all.map((c) => c.kind).join(", ")
      return yield* new DirectoryRefused({ message: `no connector of kind "${kind}" (known: ${known})` })
    }
    const explanation = explainStatus(text, found?.statusMapping)
    yield* print(json, asJson(explanation, kind ?? null), () => [
      `${explanation.status}  "${explanation.text}"`,
      `  canonical:  ${explanation.canonical === "" ? "(empty)" : explanation.canonical}`,
      `  decided by: ${decidedBy(explanation)}`,
      `  why:        ${explanation.reason}`
    ])
  })
).pipe(Command.withDescription("Explain how a portal status text is normalized, and why"))

export const status = Command.make("status").pipe(
  Command.withDescription("Portal status normalization"),
  Command.withSubcommands([explain])
)
