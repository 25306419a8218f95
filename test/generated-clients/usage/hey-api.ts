// @ts-nocheck: the generated client exists only in the test's temporary project, where
// generated-clients.test.ts compiles this file without this line.
/**
 * The contract through @hey-api/openapi-ts's SDK: integer parameters, string ids, the two
 * expansions, the resources by name, and the error codes.
 */
import { receivablesList } from "../hey-api/sdk.gen.ts"
import type { Error as ErrorBody, Receivable, ReceivableList, ReceivablesListData } from "../hey-api/types.gen.ts"
import type { Equals } from "./Equals.ts"

type ListQuery = NonNullable<ReceivablesListData["query"]>

export const firstAmount = async (): Promise<number> => {
  const { data } = await receivablesList({
    query: { limit: 500, history_limit: 0, "expand[]": ["history"], vendor_id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301" },
    throwOnError: true
  })
  return data.data[0]?.amount_cents ?? 0
}
// @ts-expect-error `limit` is an integer, not its decimal text
export const textLimit: ListQuery = { limit: "500" }
// @ts-expect-error `expand[]` takes history and metadata only
export const unknownExpansion: ListQuery = { "expand[]": ["vendor"] }

export const methodNotAllowed: ErrorBody["error"]["code"] = "method_not_allowed"
// @ts-expect-error the codes are the contract's, not any string
export const unknownCode: ErrorBody["error"]["code"] = "teapot"

export const exact: ReadonlyArray<true> = [
  true satisfies Equals<ListQuery["limit"], number | undefined>,
  true satisfies Equals<ListQuery["debtor_id"], string | undefined>,
  true satisfies Equals<ListQuery["verified_since"], string | undefined>,
  true satisfies Equals<ListQuery["expand[]"], Array<"history" | "metadata"> | undefined>,
  true satisfies Equals<ReceivableList["data"], Array<Receivable>>,
  true satisfies Equals<Receivable["amount_cents"], number>,
  true satisfies Equals<Receivable["vendor"]["id"], string>
]
