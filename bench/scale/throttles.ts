/**
 * The cost of the sign-in throttles per attempt, in this process's memory against PostgreSQL,
 * side by side (`node bench/scale/throttles.ts`). A fresh embedded PostgreSQL; the two stores
 * alternate round after round so that both share the machine's speed of the minute. What the
 * dashboard's sign-in does around its password hash, from `BENCH_CONCURRENCY` fibers at once for
 * `BENCH_SECONDS` per pattern:
 *
 * - "storm": every attempt a new account from a new address, each let through and left counted as
 *   a failure (four keys written);
 * - "one address": every attempt a new account from one address, refused once the address is
 *   locked (the counts read, nothing written);
 * - "right passwords": a new account from a new address, let through and then taken back,
 *   forgiven and trusted (the record and the settlement).
 *
 * Attempts/s, latency per attempt, and CPU per attempt of this process and of PostgreSQL. A
 * sign-in costs a password hash besides (about 100 ms of a core), which is not run here.
 *
 * Options (environment): BENCH_SECONDS (default 5), BENCH_CONCURRENCY (default 16),
 * BENCH_ROUNDS (default 2); BENCH_SMOKE=1 for a run of seconds.
 */
import { Clock, Effect, Layer, Redacted } from "effect"
import * as Database from "../../adapters/postgres/Database.ts"
import * as PgSignInThrottleStore from "../../adapters/postgres/PgSignInThrottleStore.ts"
import * as MemorySignInThrottleStore from "../../core/accounts/memory/SignInThrottleStore.ts"
import type { SignInThrottleStandIn, SignInThrottleStore } from "../../core/accounts/ports/SignInThrottleStore.ts"
import { makeThrottle } from "../../core/accounts/services/SignInThrottle.ts"
import { postgresCpuSeconds, postmasterPid, processCpuSeconds } from "../ProcessCpu.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { quantile } from "../support/OneOrganization.ts"
import { option } from "../support/Smoke.ts"

const seconds = option("BENCH_SECONDS", 5, 0.5)
const concurrency = option("BENCH_CONCURRENCY", 16, 2)
const rounds = option("BENCH_ROUNDS", 2, 1)
const log = (line: string) => process.stderr.write(`${line}\n`)

/** The n-th address of a run, distinct up to 16 million, apart from other runs' by `run`. */
const address = (run: number, n: number) => `${10 + run}.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`

type Throttle = Effect.Success<ReturnType<typeof makeThrottle>>

const patterns: Record<string, (throttle: Throttle, run: number, n: number) => Effect.Effect<void>> = {
  storm: (throttle, run, n) => Effect.asVoid(throttle.admit(`storm-${run}-${n}@example.com`, address(run, n))),
  "one address": (throttle, run, n) => Effect.asVoid(throttle.admit(`one-${run}-${n}@example.com`, address(run, 0))),
  "right passwords": (throttle, run, n) =>
    Effect.flatMap(throttle.admit(`right-${run}-${n}@example.com`, address(run, n)), (admission) =>
      admission._tag === "Admitted" ? admission.attempt.succeeded : Effect.void
    )
}

/** One pattern for `seconds` from `concurrency` fibers over the store provided: its table row. */
const measure = (
  pattern: string,
  attempt: (throttle: Throttle, run: number, n: number) => Effect.Effect<void>,
  run: number,
  postmaster: string
) =>
  Effect.gen(function* () {
    const throttle = yield* makeThrottle("password")
    const timings: Array<number> = []
    const cpuBefore = processCpuSeconds(process.pid)
    const postgresBefore = postgresCpuSeconds(postmaster)
    const started = performance.now()
    const until = started + seconds * 1000
    yield* Effect.forEach(
      Array.from({ length: concurrency }, (_, fiber) => fiber),
      (fiber) =>
        Effect.gen(function* () {
          for (let n = fiber; performance.now() < until; n += concurrency) {
            const sent = yield* Clock.currentTimeNanos
            yield* attempt(throttle, run, n)
            timings.push(Number((yield* Clock.currentTimeNanos) - sent) / 1e6)
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    const elapsed = (performance.now() - started) / 1000
    const perAttempt = (cpuSeconds: number) => ((cpuSeconds * 1000) / timings.length).toFixed(3)
    return [
      pattern,
      concurrency,
      (timings.length / elapsed).toFixed(0),
      quantile(timings, 0.5).toFixed(3),
      quantile(timings, 0.99).toFixed(3),
      perAttempt(processCpuSeconds(process.pid) - cpuBefore),
      perAttempt(postgresCpuSeconds(postmaster) - postgresBefore)
    ]
  })

const program = withFreshDatabase("throttles", (url) =>
  Effect.gen(function* () {
    const postmaster = yield* postmasterPid
    const pool = Database.layerUrl(Redacted.make(url), { maxConnections: 10 })
    const stores: Record<string, Layer.Layer<SignInThrottleStore | SignInThrottleStandIn>> = {
      memory: Layer.merge(MemorySignInThrottleStore.layerOwnState(), MemorySignInThrottleStore.layerStandIn()),
      postgres: PgSignInThrottleStore.layer.pipe(
        Layer.provide(pool),
        Layer.orDie,
        Layer.merge(MemorySignInThrottleStore.layerStandIn())
      )
    }
    const rows: Array<string> = []
    let run = 0
    for (let round = 1; round <= rounds; round++) {
      for (const [pattern, attempt] of Object.entries(patterns)) {
        for (const [store, layer] of Object.entries(stores)) {
          run += 1
          const [name, fibers, ...figures] = yield* Effect.scoped(
            measure(pattern, attempt, run, postmaster).pipe(Effect.provide(layer))
          )
          const row = `| ${name} | ${fibers} | ${store} | ${figures.join(" | ")} |`
          log(row)
          rows.push(row)
        }
      }
    }
    process.stdout.write(
      `${[
        "Sign-in throttles alone (no password hashed):",
        "",
        "| pattern | fibers | store | attempts/s | p50 ms | p99 ms | this process CPU ms/attempt | PostgreSQL CPU ms/attempt |",
        "|---|---|---|---|---|---|---|---|",
        ...rows
      ].join("\n")}\n`
    )
  })
)

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  log(String(error))
  process.exit(1)
})
