/**
 * API requests per day as the dashboard charts them: the last 30 UTC days, today included, by
 * how they were answered, for the whole organization (all its keys, revoked ones too: the Keys
 * page) or for one of its keys (the key's page, with the paths its recent requests asked for
 * most). Read from the per-key daily counts of the `KeyUsageStore`, which count 3xx with 2xx as
 * "not refused", and from the `AuditLog`. Depends on effect and the core alone.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { ApiKeyRecord } from "../../access/ports/ApiKeyStore.ts"
import { AuditLog } from "../../access/ports/AuditLog.ts"
import { type KeyUsageDay, KeyUsageStore } from "../../access/ports/KeyUsageStore.ts"
import type { Actor } from "../../accounts/services/Accounts.ts"
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

/** A key's recent requests that its top paths are counted over: the newest, within the window. */
export const topPathsSample = 1000
/** Paths listed on a key's page. */
export const topPathsShown = 10

export interface PathCount {
  readonly path: string
  readonly requests: number
}

export interface KeyUsage {
  readonly key: ApiKeyRecord
  readonly days: ReadonlyArray<UsageDay>
  /** The most asked-for paths among the key's `sampled` newest requests of the window, most first. */
  readonly topPaths: ReadonlyArray<PathCount>
  readonly sampled: number
}

/** The paths asked for most, most first (then by path, for a stable order), at most `limit`. */
export const topPaths = (paths: ReadonlyArray<string>, limit: number): ReadonlyArray<PathCount> => {
  const counts = new Map<string, number>()
  for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1)
  return [...counts]
    .map(([path, requests]) => ({ path, requests }))
    .sort((a, b) => b.requests - a.requests || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, limit)
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
    /** One of the organization's keys' usage; undefined for another organization's key or none. */
    readonly ofKey: (actor: Actor, keyId: string) => Effect.Effect<KeyUsage | undefined>
  }
>()("core/OrganizationUsage") {
  static readonly layer = Layer.effect(
    OrganizationUsage,
    Effect.gen(function* () {
      const usage = yield* KeyUsageStore
      const keys = yield* KeyAdministration
      const audit = yield* AuditLog

      /** The window's days, oldest first, summing the keys' counts. */
      const summed = (today: DateTime.Utc, usages: ReadonlyArray<ReadonlyArray<KeyUsageDay>>) => {
        const days = window(today)
        const totals = new Map(days.map((day) => [day, { day, succeeded: 0, clientErrors: 0, serverErrors: 0 }]))
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
      }

      const daily = Effect.fn("OrganizationUsage.daily")(function* (actor: Actor) {
        const records = yield* keys.list(actor)
        const usages = yield* Effect.forEach(records, (record) => usage.days(actor.user.orgId, record.id), {
          concurrency: 4
        })
        return summed(yield* DateTime.now, usages)
      })

      const ofKey = Effect.fn("OrganizationUsage.ofKey")(function* (actor: Actor, keyId: string) {
        const key = yield* keys.find(actor, keyId)
        if (key === undefined) return undefined
        const now = yield* DateTime.now
        const [days, recent] = yield* Effect.all(
          [
            usage.days(actor.user.orgId, key.id),
            audit.search({
              orgId: actor.user.orgId,
              keyId: key.id,
              since: DateTime.subtract(now, { days: usageDays }),
              // A minute ahead, so requests just answered are inside the window.
              until: DateTime.add(now, { minutes: 1 }),
              limit: topPathsSample
            })
          ],
          { concurrency: 2 }
        )
        return {
          key,
          days: summed(now, [days]),
          topPaths: topPaths(
            recent.map((found) => found.entry.path),
            topPathsShown
          ),
          sampled: recent.length
        } satisfies KeyUsage
      })

      return OrganizationUsage.of({ daily, ofKey })
    })
  )
}
