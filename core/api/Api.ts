/**
 * The HTTP contract of v1 (spec section 4): the receivables, vendors and debtors groups, their
 * parameters, responses and errors, and bearer security; beyond the spec and non-breaking (spec
 * 9.2), the integrations group and the events feed. The server implements it, and the same
 * definition generates the typed client and the OpenAPI document.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

import {
  Debtor,
  HistoryEntry,
  Integration,
  LastSync,
  ListOf,
  Receivable,
  ReceivableList,
  Vendor
} from "../receivables/domain/Resources.ts"
import { ErrorBody, ResourceMissing } from "./Errors.ts"
import { EventsGroup } from "./EventsApi.ts"
import * as OpenApiDocument from "./openapi/Document.ts"
import * as Query from "./Query.ts"
import { Authorization, RequestValidation } from "./Security.ts"
import { WebhooksGroup } from "./WebhooksApi.ts"

export class ReceivablesGroup extends HttpApiGroup.make("receivables")
  .add(
    HttpApiEndpoint.get("list", "/receivables", {
      query: Query.receivablesListQuery,
      success: ReceivableList
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List receivables",
        description:
          "Receivables of your organization, ordered by detection time (oldest first), then id. Filters combine. Page with `page`, or with `starting_after=<id of the last item received>`, which never skips or repeats an item that keeps matching while syncs run and costs the same at any depth.\n\nPolling: load everything once with `verified_since=all`, then poll with `verified_since` set to the `next_verified_since` of your previous poll's first page, and upsert by `id`. No change committed after a response has an `updated_at` before its `next_verified_since`, so nothing is missed and no overlap window is needed. (Or follow `GET /v1/events`.) A receivable's `estimated_next_update_at` is its vendor-debtor pair's next sync, which moves at every sync of the pair, also one that changes nothing and so moves no `updated_at`: after each poll, set it on every receivable of each pair from `GET /v1/integrations`. With `expand[]=metadata` on the load and the polls, the copy then equals a full load, field for field."
      })
    ),
    HttpApiEndpoint.get("get", "/receivables/:id", {
      // Any string reaches the handler: a malformed id is "not found" like an unknown one.
      params: { id: Schema.String.annotate({ description: "Receivable identifier: rcv_ and 32 hex characters" }) },
      query: Query.receivableGetQuery,
      success: Receivable,
      error: ResourceMissing
    }).annotateMerge(
      OpenApi.annotations({ summary: "Get a receivable", description: "With its history and metadata." })
    )
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Receivables",
      description:
        "Payment obligations as the debtors' procurement portals show them, each of one vendor and one debtor, with a normalized status, its change history and the portal's raw metadata."
    })
  ) {}

export class VendorsGroup extends HttpApiGroup.make("vendors")
  .add(
    HttpApiEndpoint.get("list", "/vendors", {
      query: Query.vendorsListQuery,
      success: ListOf(Vendor).annotate({ identifier: "VendorList" })
    }).annotateMerge(OpenApi.annotations({ summary: "List vendors", description: "Ordered by name, then id." }))
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Vendors",
      description: "The companies that issued your organization's receivables: your clients."
    })
  ) {}

export class DebtorsGroup extends HttpApiGroup.make("debtors")
  .add(
    HttpApiEndpoint.get("list", "/debtors", {
      query: Query.debtorsListQuery,
      success: ListOf(Debtor).annotate({ identifier: "DebtorList" })
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List debtors",
        description: "Debtors with receivables in your organization, ordered by name, then id."
      })
    )
  )
  .annotateMerge(
    OpenApi.annotations({ title: "Debtors", description: "The companies that owe the receivables: the buyers." })
  ) {}

export class IntegrationsGroup extends HttpApiGroup.make("integrations")
  .add(
    HttpApiEndpoint.get("list", "/integrations", {
      query: Query.integrationsListQuery,
      success: ListOf(Integration).annotate({ identifier: "IntegrationList" })
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List integrations",
        description:
          "Your organization's vendor-debtor pairs, each with its connector's kind (never its configuration), its state, its last finished sync and when it is next synced: its `estimated_next_update_at` is the one every receivable of the pair shows, and a copy of the receivables takes it from here, as it moves without a change to them. Ordered by vendor name, debtor name, then id. A vendor or debtor that is not yours gives an empty list."
      })
    )
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Integrations",
      description: "Your vendor-debtor pairs, each synced with its debtor's portal, and how their syncs fare."
    })
  ) {}

/** The endpoints alone, which the OpenAPI document's refinement reads its query parameters from. */
const endpoints = HttpApi.make("partner-receivables")
  .add(ReceivablesGroup)
  .add(VendorsGroup)
  .add(DebtorsGroup)
  .add(IntegrationsGroup)
  .add(EventsGroup)
  .add(WebhooksGroup)
  .middleware(RequestValidation)
  .middleware(Authorization)
  .prefix("/v1")

const refineDocument = OpenApiDocument.refine(endpoints, { contact: { name: "Partner Receivables API support" } })

export class Api extends endpoints
  // Named in the document, though no endpoint answers one alone: the document refers to them
  // (list items, history entries, every error body), and generated clients get a type of each.
  .annotate(HttpApi.AdditionalSchemas, [Vendor, Debtor, HistoryEntry, Integration, LastSync, ErrorBody])
  .annotateMerge(
    OpenApi.annotations({
      title: "Partner Receivables API",
      version: "1.0.0",
      description:
        "Read-only access to receivables verified by debtors' procurement portals, with their vendors and debtors.\n\nThe API grows within v1 (new fields, new endpoints): any object in an answer may carry fields this document does not name yet, so keep or ignore the fields you do not know. Parameters are strict: one the endpoint does not define is refused.",
      license: { name: "MIT", identifier: "MIT" },
      // Relative: the API is where this document is, so "try it" and generated clients stay on
      // the origin that served it, whatever the deployment's address.
      servers: [{ url: "/", description: "The origin that serves this document" }],
      // Effect passes the document it generated, typed as any record.
      transform: (generated) => refineDocument(generated as OpenApi.OpenAPISpec)
    })
  ) {}
