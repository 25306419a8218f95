/**
 * The organization's API requests per day as the Keys page charts them: the last 30 UTC days,
 * today included, each day's requests of all its keys (revoked ones too) by how they were
 * answered. Read from the per-key daily counts the audit log keeps (`ApiKeys.usage`), which count
 * 3xx with 2xx as "not refused". Depends on effect and the core alone.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { ApiKeys } from "./ApiKeys.ts"
import type { Actor } from "./DashboardAccess.ts"
import { DashboardKeys } from "./DashboardKeys.ts"

/** Days charted, today the last. */
export const usageDays = 30

export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  /** Answered below 400. */
  readonly succeeded: number
  readonly clientErrors: number
  readonly serverErrors: number
}

/** The `usageDays` days ending with `today`, oldest first. */
const window = (today: DateTime.Utc) =>
  Array.from({ length: usageDays }, (_, index) =>
    DateTime.formatIso(DateTime.subtract(today, { days: usageDays - 1 - index })).slice(0, 10)
  )

export class DashboardUsage extends Context.Service<
  DashboardUsage,
  {
    /** Every day of the window, oldest first, with zeros where there were no requests. */
    readonly daily: (actor: Actor) => Effect.Effect<ReadonlyArray<UsageDay>>
  }
>()("core/DashboardUsage") {
  static readonly layer = Layer.effect(
    DashboardUsage,
    Effect.gen(function* () {
      const apiKeys = yield* ApiKeys
      const keys = yield* DashboardKeys

      const daily = Effect.fn("DashboardUsage.daily")(function* (actor: Actor) {
        const days = window(yield* DateTime.now)
        const totals = new Map(days.map((day) => [day, { day, succeeded: 0, clientErrors: 0, serverErrors: 0 }]))
        const records = yield* keys.list(actor)
        // Keys are revoked, never deleted: a key listed a moment ago still has its usage.
        const usages = yield* Effect.forEach(records, (record) => Effect.orDie(apiKeys.usage(record.id)), {
          concurrency: 4
        })
        for (const usage of usages) {
          for (const day of usage.days) {
            const total = totals.get(day.day)
            if (total === undefined) continue
            total.succeeded += day.requests2xx
            total.clientErrors += day.requests4xx
            total.serverErrors += day.requests5xx
          }
        }
        return days.map((day) => totals.get(day)!)
      })

      return DashboardUsage.of({ daily })
    })
  )
}
