/**
 * What on the overview needs someone to act, most urgent first: failing pairs, pairs whose
 * update is overdue (the scheduler or the portal is behind), paused pairs, and pairs whose last
 * run quarantined documents. A pure function of the pairs and the time; the overview renders it,
 * followed by the organization's disabled webhook endpoints (`WebhookOverview.disabled`).
 */
import { DateTime, Duration } from "effect"
import type { Integration } from "../../../../core/receivables/domain/Resources.ts"

/** The most disabled webhook endpoints the overview lists by name. */
export const disabledEndpointsListed = 20

/** How late a pair's next update may be before the overview calls it stale. */
export const staleAfter = Duration.hours(1)

export type Concern = "failing" | "stale" | "paused" | "quarantined"

export interface Attention {
  readonly concern: Concern
  readonly integration: Integration
}

const rank: Record<Concern, number> = { failing: 0, stale: 1, paused: 2, quarantined: 3 }

/** One entry per pair and concern, most urgent concern first, then in the pairs' own order. */
export const needingAttention = (pairs: ReadonlyArray<Integration>, now: DateTime.Utc): ReadonlyArray<Attention> =>
  pairs
    .flatMap((integration): ReadonlyArray<Attention> => {
      const concerns: Array<Concern> = []
      if (integration.state === "failing") concerns.push("failing")
      if (integration.state === "paused") concerns.push("paused")
      const next = integration.estimatedNextUpdateAt
      if (
        integration.state === "active" &&
        next !== null &&
        DateTime.isLessThan(DateTime.addDuration(next, staleAfter), now)
      ) {
        concerns.push("stale")
      }
      if ((integration.lastSync?.quarantined ?? 0) > 0) concerns.push("quarantined")
      return concerns.map((concern) => ({ concern, integration }))
    })
    .toSorted((a, b) => rank[a.concern] - rank[b.concern])
