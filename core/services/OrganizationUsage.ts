/**
 * The organization's API requests per day as the dashboard's Keys page charts them: the last 30
 * UTC days, today included, each day's requests of all its keys (revoked ones too) by how they
 * were answered. Read from the per-key daily counts of the `KeyUsageStore`, which count 3xx with
 * 2xx as "not refused". Depends on effect and the core alone.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { KeyUsageStore } from "../ports/KeyUsageStore.ts"
import type { Actor } from "./Accounts.ts"
import { KeyAdministration } from "./KeyAdministration.ts"

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

export class OrganizationUsage extends Context.Service<
  OrganizationUsage,
  {
    /** Every day of the window, oldest first, with zeros where there were no requests. */
    readonly daily: (actor: Actor) => Effect.Effect<ReadonlyArray<UsageDay>>
  }
>()("core/OrganizationUsage") {
  static readonly layer = Layer.effect(
    OrganizationUsage,
    Effect.gen(function* () {
      const usage = yield* KeyUsageStore
      const keys = yield* KeyAdministration

      const daily = Effect.fn("OrganizationUsage.daily")(function* (actor: Actor) {
        const days = window(yield* DateTime.now)
        const totals = new Map(days.map((day) => [day, { day, succeeded: 0, clientErrors: 0, serverErrors: 0 }]))
        const records = yield* keys.list(actor)
        const usages = yield* Effect.forEach(records, (record) => usage.days(actor.user.orgId, record.id), {
          concurrency: 4
        })
        for (const keyDays of usages) {
          for (const day of keyDays) {
            const total = totals.get(day.day)
            if (total === undefined) continue
            total.succeeded += day.requests2xx
            total.clientErrors += day.requests4xx
            total.serverErrors += day.requests5xx
          }
        }
        return days.map((day) => totals.get(day)!)
      })

      return OrganizationUsage.of({ daily })
    })
  )
}
