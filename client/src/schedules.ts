/**
 * The pairs' schedules, for `sync`. A receivable's `estimated_next_update_at` is the next sync of
 * its vendor-debtor pair, which moves at every sync of the pair, also one that changes nothing
 * and so writes no event and moves no `updated_at`: neither feed can carry it. `GET
 * /v1/integrations` serves every pair's, the very value that the pair's receivables show.
 */
import type { ListIntegrationsParams } from "./params.ts"
import type { RequestOptions } from "./transport.ts"
import type { Integration, List, ReceivableFields } from "./wire.ts"

/** When the API next expects fresh data for every receivable of one vendor-debtor pair. */
export interface PairSchedule {
  readonly vendor_id: string
  readonly debtor_id: string
  /** What each receivable of the pair shows as its `estimated_next_update_at`; null while the pair is paused. */
  readonly estimated_next_update_at: string | null
}

export type ListIntegrations = (params: ListIntegrationsParams, options: RequestOptions) => Promise<List<Integration>>

/** Every pair's schedule, now. */
export const readSchedules = async (
  list: ListIntegrations,
  options: RequestOptions
): Promise<ReadonlyArray<PairSchedule>> =>
  (await list({}, options)).data.map((integration) => ({
    vendor_id: integration.vendor.id,
    debtor_id: integration.debtor.id,
    estimated_next_update_at: integration.estimated_next_update_at
  }))

const pairKey = (vendorId: string, debtorId: string) => `${vendorId} ${debtorId}`

/**
 * The schedule of a receivable's pair: the pairs are read when one is first asked for, and again
 * for a pair not seen yet (created since).
 */
export const scheduleLookup = (list: ListIntegrations, options: RequestOptions) => {
  let known: ReadonlyMap<string, string | null> = new Map()
  return async (receivable: Pick<ReceivableFields, "vendor" | "debtor">): Promise<string | null> => {
    const key = pairKey(receivable.vendor.id, receivable.debtor.id)
    if (!known.has(key)) {
      const schedules = await readSchedules(list, options)
      known = new Map(schedules.map((s) => [pairKey(s.vendor_id, s.debtor_id), s.estimated_next_update_at]))
    }
    return known.get(key) ?? null
  }
}
