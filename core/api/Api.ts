/**
 * The HTTP contract of v1 (spec section 4): the receivables, vendors and debtors groups, their
 * parameters, responses and errors, and bearer security. The server implements it, and the same
 * definition generates the typed client and the OpenAPI document.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

import { Debtor, ListOf, PageOf, Receivable, Vendor } from "../domain/Resources.ts"
import { ResourceMissing } from "./Errors.ts"
import { EventsGroup } from "./EventsApi.ts"
import * as Query from "./Query.ts"
import { Authorization, RequestValidation } from "./Security.ts"

export class ReceivablesGroup extends HttpApiGroup.make("receivables")
  .add(
    HttpApiEndpoint.get("list", "/receivables", {
      query: Query.receivablesListQuery,
      success: PageOf(Receivable).annotate({ identifier: "ReceivableList" })
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List receivables",
        description:
          "Receivables of your organization, ordered by detection time (oldest first), then id. Filters combine. Pages never skip or repeat an item while syncs run."
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
  .annotateMerge(OpenApi.annotations({ title: "Receivables" })) {}

export class VendorsGroup extends HttpApiGroup.make("vendors")
  .add(
    HttpApiEndpoint.get("list", "/vendors", {
      query: Query.vendorsListQuery,
      success: ListOf(Vendor).annotate({ identifier: "VendorList" })
    }).annotateMerge(OpenApi.annotations({ summary: "List vendors", description: "Ordered by name, then id." }))
  )
  .annotateMerge(OpenApi.annotations({ title: "Vendors" })) {}

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
  .annotateMerge(OpenApi.annotations({ title: "Debtors" })) {}

export class Api extends HttpApi.make("partner-receivables")
  .add(ReceivablesGroup)
  .add(VendorsGroup)
  .add(DebtorsGroup)
  .add(EventsGroup)
  .middleware(RequestValidation)
  .middleware(Authorization)
  .prefix("/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Partner Receivables API",
      version: "1.0.0",
      description:
        "Read-only access to receivables verified by debtors' procurement portals, with their vendors and debtors."
    })
  ) {}
