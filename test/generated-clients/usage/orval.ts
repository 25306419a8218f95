// @ts-nocheck: the generated client exists only in the test's temporary project, where
// generated-clients.test.ts compiles this file without this line.
/**
 * The contract through orval's fetch client: integer parameters, string ids, the two
 * expansions, the resources by name, and the error codes.
 */
import {
  type Error as ErrorBody,
  type Receivable,
  type ReceivableList,
  type ReceivablesListParams,
  receivablesList
} from "../orval/api.ts"
import type { Equals } from "./Equals.ts"

export const firstAmount = async (): Promise<number> => {
  const answer = await receivablesList({
    limit: 500,
    page: 1,
    "expand[]": ["history", "metadata"],
    verified_since: "all"
  })
  return answer.status === 200 ? (answer.data.data[0]?.amount_cents ?? 0) : 0
}
// @ts-expect-error `limit` is an integer, not its decimal text
export const textLimit: ReceivablesListParams = { limit: "500" }
// @ts-expect-error `expand[]` takes history and metadata only
export const unknownExpansion: ReceivablesListParams = { "expand[]": ["vendor"] }

export const methodNotAllowed: ErrorBody["error"]["code"] = "method_not_allowed"
// @ts-expect-error the codes are the contract's, not any string
export const unknownCode: ErrorBody["error"]["code"] = "teapot"

export const exact: ReadonlyArray<true> = [
  true satisfies Equals<ReceivablesListParams["limit"], number | undefined>,
  true satisfies Equals<ReceivablesListParams["vendor_id"], string | undefined>,
  true satisfies Equals<ReceivablesListParams["verified_since"], string | undefined>,
  true satisfies Equals<ReceivableList["data"], Receivable[]>,
  true satisfies Equals<Receivable["amount_cents"], number>,
  true satisfies Equals<Receivable["vendor"]["id"], string>
]
