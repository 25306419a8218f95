/**
 * One example of each resource, as the API sends it, for the component schemas that describe
 * them: documentation tools show it and mock servers answer with it, where they would otherwise
 * invent `"string"` and `0`. Each is decoded with its own schema by the tests, so none can drift
 * from the contract.
 */
import type { OpenApi } from "effect/http-api"
import { isJsonObject } from "./Json.ts"

const vendor = { id: "7d3c2a1e-5b4f-4e8a-9c6d-0f1e2d3c4b5a", name: "Acme Supplies" }
const debtor = { id: "2b9e8f7a-6c5d-4b3a-8e1f-9d0c1b2a3e4f", name: "Globex" }

export const examples = {
  Vendor: {
    ...vendor,
    object: "vendor",
    created_at: "2026-10-01T09:00:00.000Z",
    estimated_next_update_at: "2026-11-21T04:00:00.000Z"
  },
  Debtor: {
    ...debtor,
    object: "debtor",
    created_at: "2026-10-01T09:00:00.000Z",
    estimated_next_update_at: "2026-11-21T04:00:00.000Z"
  },
  HistoryEntry: {
    changed_at: "2026-11-20T03:46:13.000Z",
    changes: {
      status: { from: "PENDING", to: "APPROVED" },
      portal_status: { from: "Pending Approval", to: "Approved for Payment" }
    }
  },
  Receivable: {
    id: "rcv_0c8f2d9e4b7a41f3a5d6c7e8f9a0b1c2",
    object: "receivable",
    vendor_receivable_id: "INV-2026-0042",
    vendor,
    debtor,
    amount_cents: 1250000,
    currency: "EUR",
    receivable_date: "2026-11-02",
    due_date: "2026-12-02",
    status: "APPROVED",
    portal_status: "Approved for Payment",
    po_number: "PO-88121",
    detected_at: "2026-11-03T08:15:00.000Z",
    updated_at: "2026-11-20T03:46:13.000Z",
    estimated_next_update_at: "2026-11-21T04:00:00.000Z",
    history: [
      {
        changed_at: "2026-11-20T03:46:13.000Z",
        changes: {
          status: { from: "PENDING", to: "APPROVED" },
          portal_status: { from: "Pending Approval", to: "Approved for Payment" }
        }
      }
    ],
    metadata: { payment_terms: "NET30", supplier_code: "SUP-1187" }
  },
  Integration: {
    id: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
    object: "integration",
    vendor,
    debtor,
    connector: "coupa",
    state: "active",
    last_sync: {
      started_at: "2026-11-20T03:45:58.000Z",
      finished_at: "2026-11-20T03:46:13.000Z",
      outcome: "succeeded",
      created: 3,
      updated: 12,
      unchanged: 418,
      quarantined: 1,
      error: null,
      error_class: null
    },
    estimated_next_update_at: "2026-11-21T04:00:00.000Z"
  },
  Error: {
    error: {
      type: "invalid_request_error",
      code: "parameter_invalid",
      message: "limit: expected a value between 1 and 500, got 501",
      param: "limit"
    }
  }
} as const

/** The document with each of these components given its example. */
export const addExamples = (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const schemas = document.components.schemas
  return {
    ...document,
    components: {
      ...document.components,
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([name, schema]) => {
          const example = (examples as Record<string, unknown>)[name]
          return [name, example === undefined || !isJsonObject(schema) ? schema : { ...schema, examples: [example] }]
        })
      ) as typeof schemas
    }
  }
}
