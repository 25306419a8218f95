/**
 * The dashboard actions page as admins read it: an entry the service wrote itself (no user, a
 * disabled webhook endpoint) reads as the service having done it, on the endpoint and why; a
 * user's entry is named by the user.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { actions } from "../../../../adapters/http/dashboard/admin/AuditActionPages.ts"
import type { StoredDashboardAuditEntry } from "../../../../core/accounts/ports/DashboardAuditLog.ts"
import type { OrgId, UserId } from "../../../../core/shared/domain/Ids.ts"
import { disabledEndpointSubject } from "../../../../core/webhooks/services/WebhookDelivery.ts"

const at = DateTime.makeUnsafe("2026-11-26T12:00:00Z")
const orgId = "7d0d7c3e-4a8e-4c55-9a4f-0c2b1f1f7e01" as OrgId
const userId = "2f6b3c1a-9e0d-4f7a-8b1c-5d4e3f2a1b0c" as UserId
const viewer = {
  user: { id: userId, orgId, email: "admin@example.com", role: "admin" as const, createdAt: at },
  csrfToken: "token"
}

const stored = (entry: StoredDashboardAuditEntry["entry"], sequence: number): StoredDashboardAuditEntry => ({
  entry,
  position: { at: entry.at, sequence }
})

/** The text of each cell of each row of the page's table body. */
const rows = (page: string) =>
  [...(page.split("<tbody>")[1] ?? "").split("</tbody>")[0]!.matchAll(/<tr>(.*?)<\/tr>/gs)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((cell) => cell[1]!.replace(/<[^>]*>/g, "").trim())
  )

describe("the dashboard actions page", () => {
  it("reads an entry of the service as the service disabling the endpoint, and why", () => {
    const page = actions(viewer, {
      filters: { action: "", user: "" },
      members: [],
      entries: [
        stored(
          {
            at,
            user: { orgId, userId: null },
            action: "webhook_endpoint_disabled",
            subject: disabledEndpointSubject("https://hooks.example.com/in?token=secret", "gone"),
            clientAddress: null
          },
          2
        ),
        stored({ at, user: { orgId, userId }, action: "key_created", subject: null, clientAddress: "192.0.2.1" }, 1)
      ],
      names: (id) => (id === userId ? "admin@example.com" : id),
      next: undefined,
      continued: false,
      problem: undefined
    })
    assert.deepStrictEqual(
      rows(page).map((cells) => cells.slice(1)),
      [
        ["the service", "webhook endpoint disabled", "https://hooks.example.com/in: it answered 410 Gone", ""],
        ["admin@example.com", "key created", "", "192.0.2.1"]
      ]
    )
    assert.notInclude(page, "token=secret")
  })

  it("names the reason of an endpoint failing for days", () => {
    assert.strictEqual(
      disabledEndpointSubject("https://hooks.example.com/", "failing"),
      "https://hooks.example.com/: it failed for 5 days"
    )
  })
})
