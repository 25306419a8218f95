// @ts-nocheck: the generated types exist only in the test's temporary project, where
// generated-clients.test.ts compiles this file without this line.
/**
 * The contract as openapi-typescript types it: integer parameters, string ids, the two
 * expansions, the resources by name, and the error codes.
 */
import type { components, paths } from "../openapi-typescript/schema.ts"
import type { Equals } from "./Equals.ts"

type List = paths["/v1/receivables"]["get"]
type ListQuery = NonNullable<List["parameters"]["query"]>
type ListPage = List["responses"][200]["content"]["application/json"]
type ErrorCode = components["schemas"]["Error"]["error"]["code"]

export const query: ListQuery = {
  limit: 500,
  page: 2,
  history_limit: 0,
  "expand[]": ["history", "metadata"],
  vendor_id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
  verified_since: "all"
}
// @ts-expect-error `limit` is an integer, not its decimal text
export const textLimit: ListQuery = { limit: "500" }
// @ts-expect-error `expand[]` takes history and metadata only
export const unknownExpansion: ListQuery = { "expand[]": ["vendor"] }

export const firstAmount = (page: ListPage): number => page.data[0]?.amount_cents ?? 0
export const methodNotAllowed: ErrorCode = "method_not_allowed"
// @ts-expect-error the codes are the contract's, not any string
export const unknownCode: ErrorCode = "teapot"

export const exact: ReadonlyArray<true> = [
  true satisfies Equals<ListQuery["limit"], number | undefined>,
  true satisfies Equals<ListQuery["vendor_id"], string | undefined>,
  true satisfies Equals<ListQuery["verified_since"], string | undefined>,
  true satisfies Equals<ListQuery["expand[]"], Array<"history" | "metadata"> | undefined>,
  true satisfies Equals<ListPage["data"], Array<components["schemas"]["Receivable"]>>,
  true satisfies Equals<ListPage["data"][number]["amount_cents"], number>,
  true satisfies Equals<ListPage["data"][number]["vendor"]["id"], string>,
  true satisfies Equals<ListPage["next_verified_since"], string>
]
