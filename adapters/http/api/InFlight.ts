/**
 * Requests in flight per key and per organization, in this process: a key may have
 * `KEY_MAX_IN_FLIGHT` requests being answered at once (default 4), an organization's keys together
 * `ORG_MAX_IN_FLIGHT` (default 8). Rate limits count requests over time; these count the work held
 * at one moment (database connections, memory for answers), so that one tenant's slow or heavy
 * requests cannot hold what another tenant's need. A request past either is refused at once.
 */
import { Config, Context, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import { HttpServerResponse } from "effect/http"
import type { KeyOwner } from "../../../core/services/ApiKeys.ts"

export interface InFlightPolicy {
  readonly perKey: number
  readonly perOrganization: number
}

export class InFlight extends Context.Service<
  InFlight,
  {
    readonly policy: InFlightPolicy
    /**
     * Runs `answer` as one of the owner's requests in flight, or answers which allowance is spent
     * without running it.
     */
    readonly admit: <A, E, R, Refused>(
      owner: KeyOwner,
      answer: Effect.Effect<A, E, R>,
      refused: (scope: "key" | "organization") => Effect.Effect<never, Refused>
    ) => Effect.Effect<A, E | Refused, R>
  }
>()("adapters/http/InFlight") {}

const count = Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 10_000 }))

export const policy = Config.all({
  perKey: Config.schema(count, "KEY_MAX_IN_FLIGHT").pipe(Config.withDefault(4)),
  perOrganization: Config.schema(count, "ORG_MAX_IN_FLIGHT").pipe(Config.withDefault(8))
})

const isStreamed = (answer: unknown) => HttpServerResponse.isHttpServerResponse(answer) && answer.body._tag === "Stream"

export const make = (limits: InFlightPolicy) =>
  Effect.sync(() => {
    // Only what is in flight is kept: an entry leaves when its count returns to zero.
    const byKey = new Map<string, number>()
    const byOrganization = new Map<string, number>()
    const add = (counts: Map<string, number>, id: string, delta: number) => {
      const next = (counts.get(id) ?? 0) + delta
      if (next === 0) counts.delete(id)
      else counts.set(id, next)
    }
    return InFlight.of({
      policy: limits,
      admit: <A, E, R, Refused>(
        owner: KeyOwner,
        answer: Effect.Effect<A, E, R>,
        refused: (scope: "key" | "organization") => Effect.Effect<never, Refused>
      ): Effect.Effect<A, E | Refused, R> =>
        // Counted and its release installed in one uninterruptible step: an interruption between
        // the two would leave the count raised for good.
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend((): Effect.Effect<A, E | Refused, R> => {
            if ((byKey.get(owner.keyId) ?? 0) >= limits.perKey) return refused("key")
            if ((byOrganization.get(owner.orgId) ?? 0) >= limits.perOrganization) return refused("organization")
            add(byKey, owner.keyId, 1)
            add(byOrganization, owner.orgId, 1)
            const release = Effect.sync(() => {
              add(byKey, owner.keyId, -1)
              add(byOrganization, owner.orgId, -1)
            })
            // An answer written as it is read is still being worked on once returned: it holds
            // its place until the request's scope closes, after its last byte (or a hang-up).
            return Effect.onExit(restore(answer), (exit) =>
              Effect.flatMap(Effect.serviceOption(Scope.Scope), (scope) =>
                Exit.isSuccess(exit) && isStreamed(exit.value) && Option.isSome(scope)
                  ? Scope.addFinalizer(scope.value, release)
                  : release
              )
            )
          })
        )
    })
  })

export const layer = Layer.effect(InFlight, Effect.flatMap(policy, make))
