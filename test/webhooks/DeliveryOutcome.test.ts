/**
 * What `webhook_deliveries_total` counts an attempt as, from what it left the delivery and its
 * endpoint: a closed set of four, whatever the attempt's verdict.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import type { AttemptResult } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { deliveryOutcome } from "../../core/webhooks/services/WebhookDelivery.ts"

const next: fc.Arbitrary<AttemptResult["next"]> = fc.oneof(
  fc.constant({ status: "succeeded" as const }),
  fc.constant({ status: "failed" as const }),
  fc.date({ noInvalidDate: true }).map((at) => ({ status: "pending" as const, dueAt: DateTime.fromDateUnsafe(at) }))
)

const endpoint: fc.Arbitrary<AttemptResult["endpoint"]> = fc.oneof(
  fc.constant({ health: "healthy" as const }),
  fc.constant({ health: "failing" as const }),
  fc.constantFrom("manual" as const, "failing" as const, "gone" as const).map((reason) => ({
    health: "disable" as const,
    reason
  }))
)

describe("a delivery attempt's outcome in the metrics", () => {
  it("is delivered on success, disabled when the attempt disabled its endpoint, else retrying or failed", () =>
    fc.assert(
      fc.property(next, endpoint, (next, endpoint) => {
        const outcome = deliveryOutcome({ next, endpoint })
        assert.include(["delivered", "retrying", "failed", "disabled"], outcome)
        assert.strictEqual(outcome === "delivered", next.status === "succeeded")
        if (next.status !== "succeeded") {
          assert.strictEqual(outcome === "disabled", endpoint.health === "disable")
          if (endpoint.health !== "disable") {
            assert.strictEqual(outcome, next.status === "pending" ? "retrying" : "failed")
          }
        }
      }),
      { numRuns: 200 }
    ))
})
