/**
 * Requests in flight per key and per organization: a key may have `KEY_MAX_IN_FLIGHT` requests
 * being answered at once (default 4), an organization's keys together `ORG_MAX_IN_FLIGHT`
 * (default 8). Rate limits count requests over time; these count the work held at one moment
 * (database connections, memory for answers), so that one tenant's slow or heavy requests cannot
 * hold what another tenant's need. A request past either is refused at once. The counts are kept
 * by an `InFlightStore`: in PostgreSQL, across every process, with the rate limits
 * (`LIMITS_STORE`); or in this process. While the shared store cannot be reached, each process
 * counts on its own, as the rate limits do.
 */
import { Config, Context, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import { HttpServerResponse } from "effect/http"
import { layerOwnState as memoryStore } from "../../../core/access/memory/InFlightStore.ts"
import { type InFlightCaps, InFlightStore } from "../../../core/access/ports/InFlightStore.ts"
import type { KeyOwner } from "../../../core/access/services/ApiKeys.ts"

export type InFlightPolicy = InFlightCaps

export class InFlight extends Context.Service<
  InFlight,
  {
    readonly policy: InFlightPolicy
    /**
     * Runs `answer` as one of the owner's requests in flight, or, without running it, `refused`
     * with which allowance is spent.
     */
    readonly admit: <A, E, R, B, Refused>(
      owner: KeyOwner,
      answer: Effect.Effect<A, E, R>,
      refused: (scope: "key" | "organization") => Effect.Effect<B, Refused>
    ) => Effect.Effect<A | B, E | Refused, R>
  }
>()("adapters/http/InFlight") {}

const count = Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 10_000 }))

export const policy = Config.all({
  perKey: Config.schema(count, "KEY_MAX_IN_FLIGHT").pipe(Config.withDefault(4)),
  perOrganization: Config.schema(count, "ORG_MAX_IN_FLIGHT").pipe(Config.withDefault(8))
})

const isStreamed = (answer: unknown) => HttpServerResponse.isHttpServerResponse(answer) && answer.body._tag === "Stream"

/** The caps over `InFlightStore`, with this process's own counts for when the store cannot be reached. */
export const makeOver = (limits: InFlightPolicy) =>
  Effect.gen(function* () {
    const store = yield* InFlightStore
    const local = yield* Effect.provide(InFlightStore, memoryStore)
    const admission = (owner: KeyOwner) =>
      store
        .admit(owner, limits)
        .pipe(Effect.catchTag("InFlightStoreUnavailable", () => Effect.orDie(local.admit(owner, limits))))
    return InFlight.of({
      policy: limits,
      admit: <A, E, R, B, Refused>(
        owner: KeyOwner,
        answer: Effect.Effect<A, E, R>,
        refused: (scope: "key" | "organization") => Effect.Effect<B, Refused>
      ): Effect.Effect<A | B, E | Refused, R> =>
        // The store's admission is interruptible only while it waits on the database (the
        // request's deadline), and the release is installed before anything can interrupt: a place
        // taken is always given back. A process's share grown for an admission interrupted while it
        // waited shrinks at its next heartbeats.
        Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(
            admission(owner),
            (admitted): Effect.Effect<A | B, E | Refused, R> =>
              admitted._tag === "Refused"
                ? refused(admitted.scope)
                : // An answer written as it is read is still being worked on once returned: it
                  // holds its place until the request's scope closes, after its last byte (or a hang-up).
                  Effect.onExit(restore(answer), (exit) =>
                    Effect.flatMap(Effect.serviceOption(Scope.Scope), (scope) =>
                      Exit.isSuccess(exit) && isStreamed(exit.value) && Option.isSome(scope)
                        ? Scope.addFinalizer(scope.value, admitted.release)
                        : admitted.release
                    )
                  )
          )
        )
    })
  })

/** The caps in this process's memory alone. */
export const make = (limits: InFlightPolicy) => Effect.provide(makeOver(limits), memoryStore)

/** The caps from the environment, over the `InFlightStore` provided. */
export const layer = Layer.effect(InFlight, Effect.flatMap(policy, makeOver))
