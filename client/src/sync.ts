/**
 * Keeping a copy of your receivables: a full load, then only what changed, resumable from a small
 * JSON checkpoint that the caller stores. The checkpoint advances only after a page's receivables
 * were handed over, so a crash anywhere repeats at most one page and never loses a change.
 *
 * Two ways to learn what changed. `events` (the default) follows the events feed from the
 * `latest_sequence` noted before the full load; `watermark` polls the receivables list with
 * `verified_since` set to the `next_verified_since` of the previous poll's first page.
 *
 * Receivables are handed over as a full load lists them (with `metadata`, without `history`), and
 * each call ends with every pair's schedule, which moves without a change (`schedules.ts`): a copy
 * that applies both equals a full load read after the call, when no sync commits in between.
 */
import { InvalidRequestError } from "./errors.ts"
import { eventPages, receivablePages } from "./pages.ts"
import type { ListEventsParams, ListReceivablesParams } from "./params.ts"
import { type ListIntegrations, type PairSchedule, readSchedules, scheduleLookup } from "./schedules.ts"
import type { RequestOptions } from "./transport.ts"
import type {
  Event,
  EventList,
  EventReceivable,
  Metadata,
  Receivable,
  ReceivableFields,
  ReceivableList
} from "./wire.ts"

export interface EventsCheckpoint {
  readonly feed: "events"
  /** Every event up to this sequence has been handed over (or, during a full load, the feed's newest before it). */
  readonly after: number
  /** While a full load is under way: the last receivable handed over, null before the first page. */
  readonly full_load?: { readonly starting_after: string | null }
}

export interface WatermarkCheckpoint {
  readonly feed: "watermark"
  /** The next poll's `verified_since`: `all` until the full load is done. */
  readonly verified_since: string
  /** While a poll is under way: its first page's watermark, and the last receivable handed over. */
  readonly poll?: { readonly next_verified_since: string; readonly starting_after: string }
}

/** Plain JSON: store it as it is (`JSON.stringify`) and pass it back as it was. */
export type SyncCheckpoint = EventsCheckpoint | WatermarkCheckpoint

/**
 * A receivable as `sync` hands it over, whether it came from the list or the feed: as a full load
 * (`verified_since=all&expand[]=metadata`) lists it.
 */
export interface SyncedReceivable extends ReceivableFields {
  /** Its pair's schedule when it was handed over; `onSchedule` brings the later ones. */
  readonly estimated_next_update_at: string | null
  readonly metadata: Metadata
}

export interface SyncOptions {
  /** Where the last call left off; none for a first full load. */
  readonly checkpoint?: SyncCheckpoint | undefined
  /** How to follow changes when starting without a checkpoint. Default `events`. */
  readonly feed?: "events" | "watermark"
  /** Upsert it by `id`. Called in order, one at a time; a receivable may come more than once. */
  readonly onReceivable: (receivable: SyncedReceivable) => void | Promise<void>
  /**
   * Set `estimated_next_update_at` of every receivable of this pair in your copy. Called once per
   * pair at the end of each call, after its receivables: a pair's schedule moves at each of its
   * syncs, also one that changes nothing and so brings no receivable.
   */
  readonly onSchedule?: (schedule: PairSchedule) => void | Promise<void>
  /** Every event of the feed, after its receivable was handed over (events feed only). */
  readonly onEvent?: (event: Event) => void | Promise<void>
  /** Store the checkpoint durably; called after each page, and after the schedules. */
  readonly saveCheckpoint: (checkpoint: SyncCheckpoint) => void | Promise<void>
  /**
   * When the feed no longer holds every event after the checkpoint (`cursor_expired`, past the
   * retention, or past what a database restored from a backup holds): `reload` (the default) does a full load again, `throw` throws the
   * `InvalidRequestError` for the caller to decide.
   */
  readonly onCursorExpired?: "reload" | "throw"
  /** Items per request, 1 to 500. Default 500. */
  readonly limit?: number
  readonly signal?: AbortSignal | undefined
}

export interface SyncResult {
  /** Also given to `saveCheckpoint`; pass it to the next call. */
  readonly checkpoint: SyncCheckpoint
  /** Whether this call ran (or finished) a full load. */
  readonly fullLoad: boolean
  /** How many receivables were handed to `onReceivable`. */
  readonly receivables: number
}

export interface SyncApi {
  readonly listReceivables: (params: ListReceivablesParams, options: RequestOptions) => Promise<ReceivableList>
  readonly listEvents: (params: ListEventsParams, options: RequestOptions) => Promise<EventList>
  readonly listIntegrations: ListIntegrations
}

/** A list item as handed over: metadata was expanded, history is not synced. */
const synced = (item: Receivable): SyncedReceivable => {
  const { history: _history, metadata, ...fields } = item
  return { ...fields, metadata: metadata ?? {} }
}

/** Load everything, or resume, then follow the changes until caught up. */
export const sync = async (api: SyncApi, options: SyncOptions): Promise<SyncResult> => {
  const request = { signal: options.signal }
  const limit = options.limit ?? 500
  let delivered = 0
  let fullLoad = false
  // An event's receivable carries no schedule (it moves without events): its pair's is added.
  const scheduleOf = scheduleLookup(api.listIntegrations, request)
  const save = async <C extends SyncCheckpoint>(checkpoint: C): Promise<C> => {
    await options.saveCheckpoint(checkpoint)
    return checkpoint
  }
  const deliver = async (receivables: ReadonlyArray<Receivable>) => {
    for (const receivable of receivables) {
      await options.onReceivable(synced(receivable))
      delivered++
    }
  }

  const startEvents = async (): Promise<EventsCheckpoint> => {
    const { latest_sequence } = await api.listEvents({ limit: 1 }, request)
    return save({ feed: "events", after: latest_sequence, full_load: { starting_after: null } })
  }

  const loadForEvents = async (checkpoint: EventsCheckpoint): Promise<EventsCheckpoint> => {
    if (checkpoint.full_load === undefined) return checkpoint
    fullLoad = true
    const from = checkpoint.full_load.starting_after
    const params = {
      verified_since: "all",
      expand: ["metadata"],
      limit,
      ...(from ? { starting_after: from } : {})
    } as const
    let current = checkpoint
    for await (const page of receivablePages(api.listReceivables, params, request)) {
      await deliver(page.data)
      const last = page.data[page.data.length - 1]
      current = await save(
        page.has_more && last !== undefined
          ? { feed: "events", after: checkpoint.after, full_load: { starting_after: last.id } }
          : { feed: "events", after: checkpoint.after }
      )
    }
    return current
  }

  const followEvents = async (checkpoint: EventsCheckpoint): Promise<EventsCheckpoint> => {
    let current = checkpoint
    for await (const page of eventPages(api.listEvents, { after: checkpoint.after, limit }, request)) {
      for (const event of page.data) {
        // Created and updated events carry the receivable; a status change repeats its update.
        const receivable = (event.data as { readonly receivable?: EventReceivable }).receivable
        if (receivable !== undefined) {
          await options.onReceivable({ ...receivable, estimated_next_update_at: await scheduleOf(receivable) })
          delivered++
        }
        await options.onEvent?.(event)
      }
      const last = page.data[page.data.length - 1]
      if (last !== undefined) current = await save({ feed: "events", after: last.sequence })
    }
    return current
  }

  const events = async (checkpoint: EventsCheckpoint): Promise<EventsCheckpoint> => {
    const loaded = await loadForEvents(checkpoint)
    try {
      return await followEvents(loaded)
    } catch (error) {
      const expired = error instanceof InvalidRequestError && error.code === "cursor_expired"
      if (!expired || options.onCursorExpired === "throw") throw error
      return followEvents(await loadForEvents(await startEvents()))
    }
  }

  const watermark = async (checkpoint: WatermarkCheckpoint): Promise<WatermarkCheckpoint> => {
    fullLoad ||= checkpoint.verified_since === "all"
    const params = {
      verified_since: checkpoint.verified_since,
      expand: ["metadata"],
      limit,
      ...(checkpoint.poll ? { starting_after: checkpoint.poll.starting_after } : {})
    } as const
    let next = checkpoint.poll?.next_verified_since
    let current = checkpoint
    for await (const page of receivablePages(api.listReceivables, params, request)) {
      // The first page's watermark: a change committed while we page may lie behind our cursor.
      next ??= page.next_verified_since
      await deliver(page.data)
      const last = page.data[page.data.length - 1]
      current = await save(
        page.has_more && last !== undefined
          ? { ...checkpoint, poll: { next_verified_since: next, starting_after: last.id } }
          : { feed: "watermark", verified_since: next }
      )
    }
    return current
  }

  const start: SyncCheckpoint | undefined =
    options.checkpoint ?? (options.feed === "watermark" ? { feed: "watermark", verified_since: "all" } : undefined)
  const checkpoint = start?.feed === "watermark" ? await watermark(start) : await events(start ?? (await startEvents()))
  // Read after the receivables, so that no schedule handed over is older than one they carry;
  // saved again after them, for a caller that stores its copy when its checkpoint is saved.
  if (options.onSchedule !== undefined) {
    for (const schedule of await readSchedules(api.listIntegrations, request)) await options.onSchedule(schedule)
    await options.saveCheckpoint(checkpoint)
  }
  return { checkpoint, fullLoad, receivables: delivered }
}
