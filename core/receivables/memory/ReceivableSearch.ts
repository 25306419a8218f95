/**
 * `ReceivableSearch` in memory, over the memory world's `ReceivablesState`: the twin of the dashboard's search
 * for embedders and fast tests, held to the same contract as PostgreSQL's
 * (`test/contracts/ReceivableSearch.contract.ts`). It reads the rows the read path reads
 * (`ReceivableStore.ts`), one organization's through its pairs, and answers them as the list does,
 * without history, and with metadata when asked. Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { compareText } from "../../shared/memory/Keys.ts"
import { type Status, statuses } from "../domain/Status.ts"
import { ReceivableSearch, type SearchOrder, type SearchRequest, type StatusTotal } from "../ports/ReceivableSearch.ts"
import { filteredReceivables, receivableOf } from "./ReceivableStore.ts"
import { type ReceivableRow, ReceivablesState } from "./ReceivablesState.ts"

/** Letter case folded as the embedded server's C locale folds it in `lower()`: ASCII letters only. */
const lowerAscii = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

const startsWith = (text: string) => {
  const prefix = text.toLowerCase()
  return (r: ReceivableRow) =>
    r.id.startsWith(prefix) ||
    (r.state.vendorReceivableId !== null && lowerAscii(r.state.vendorReceivableId).startsWith(prefix)) ||
    (r.state.poNumber !== null && lowerAscii(r.state.poNumber).startsWith(prefix))
}

const millis = DateTime.toEpochMillis
const newestDetected = (a: ReceivableRow, b: ReceivableRow) =>
  millis(b.detectedAt) - millis(a.detectedAt) || compareText(b.id, a.id)

// The chosen column, then the newest detected; only the due date may be empty, and is last
// whichever the direction. Amounts compare within a currency: currency, amount, id, one direction.
const inOrder = (order: SearchOrder) => {
  const sign = order.descending ? -1 : 1
  switch (order.key) {
    case "detected":
      return (a: ReceivableRow, b: ReceivableRow) =>
        sign * (millis(a.detectedAt) - millis(b.detectedAt) || compareText(a.id, b.id))
    case "updated":
      return (a: ReceivableRow, b: ReceivableRow) =>
        sign * (millis(a.updatedAt) - millis(b.updatedAt)) || newestDetected(a, b)
    case "amount":
      return (a: ReceivableRow, b: ReceivableRow) =>
        sign *
        (compareText(a.state.currency, b.state.currency) ||
          a.state.amountCents - b.state.amountCents ||
          compareText(a.id, b.id))
    case "due":
      return (a: ReceivableRow, b: ReceivableRow) => {
        const [x, y] = [a.state.dueDate, b.state.dueDate]
        const byDue = x === y ? 0 : x === null ? 1 : y === null ? -1 : sign * compareText(x, y)
        return byDue || newestDetected(a, b)
      }
  }
}

export const layerMemory: Layer.Layer<ReceivableSearch, never, ReceivablesState> = Layer.effect(
  ReceivableSearch,
  Effect.gen(function* () {
    const tables = yield* ReceivablesState

    const search = (org: OrgId, request: SearchRequest) =>
      Effect.sync(() => {
        const found = filteredReceivables(tables, org, request.filter)
        const matches = request.text === undefined ? found : found.filter(startsWith(request.text))
        const { offset, limit } = request.window
        return {
          totalCount: matches.length,
          items: matches
            .sort(inOrder(request.order))
            .slice(offset, offset + limit)
            .map((r) => receivableOf(tables, r, { history: Option.none(), metadata: request.metadata === true }))
        }
      })

    const totals = (org: OrgId) =>
      Effect.sync(() => {
        const byGroup = new Map<string, { status: Status; currency: string; count: number; amountCents: number }>()
        for (const r of filteredReceivables(tables, org, {})) {
          const { status, currency, amountCents } = r.state
          const group = `${status}/${currency}`
          const total = byGroup.get(group) ?? { status, currency, count: 0, amountCents: 0 }
          byGroup.set(group, { ...total, count: total.count + 1, amountCents: total.amountCents + amountCents })
        }
        const rank = (status: Status) => statuses.indexOf(status)
        return [...byGroup.values()].sort(
          (a, b) => rank(a.status) - rank(b.status) || compareText(a.currency, b.currency)
        ) satisfies ReadonlyArray<StatusTotal>
      })

    return ReceivableSearch.of({ search, totals })
  })
)
