/**
 * Every page of a list, each continuing where the last ended: receivables by `starting_after`
 * (the id of the last item), events by `after` (the sequence of the last event). Unlike page
 * numbers, a keyset never skips nor repeats an item that keeps matching while syncs run.
 */
import type {
  IterateEventsParams,
  IterateReceivablesParams,
  ListEventsParams,
  ListReceivablesParams
} from "./params.ts"
import type { RequestOptions } from "./transport.ts"
import type { EventList, ReceivableList } from "./wire.ts"

type ListReceivables = (params: ListReceivablesParams, options: RequestOptions) => Promise<ReceivableList>
type ListEvents = (params: ListEventsParams, options: RequestOptions) => Promise<EventList>

export async function* receivablePages(
  list: ListReceivables,
  params: IterateReceivablesParams,
  options: RequestOptions
): AsyncGenerator<ReceivableList, void, undefined> {
  let startingAfter = params.starting_after
  for (;;) {
    const page = await list(
      startingAfter === undefined ? params : { ...params, starting_after: startingAfter },
      options
    )
    yield page
    const last = page.data[page.data.length - 1]
    if (!page.has_more || last === undefined) return
    startingAfter = last.id
  }
}

export async function* eventPages(
  list: ListEvents,
  params: IterateEventsParams,
  options: RequestOptions
): AsyncGenerator<EventList, void, undefined> {
  let after = params.after
  for (;;) {
    const page = await list(after === undefined ? params : { ...params, after }, options)
    yield page
    const last = page.data[page.data.length - 1]
    if (!page.has_more || last === undefined) return
    after = last.sequence
  }
}

export async function* items<Item>(
  pages: AsyncIterable<{ readonly data: ReadonlyArray<Item> }>
): AsyncGenerator<Item, void, undefined> {
  for await (const page of pages) yield* page.data
}
