/**
 * Where an inbox connector's files are: a local directory or a directory on an SFTP server. A
 * connector lists the inbox, plans which files to read, opens each as a stream of bytes, and
 * tells the inbox once a fetch has read all it planned, so that an inbox that remembers (SFTP)
 * skips those files next time. Any inbox connector (`file`, `cxml`, …) takes either.
 */
import { Effect, type Scope, type Stream } from "effect"
import { type ConnectorFailed, permanentFailure } from "../../../core/receivables/ports/PortalConnector.ts"

/** A file in the inbox's listing. */
export interface InboxEntry {
  readonly name: string
  /**
   * What tells this version of the file from another (its size and modification time), where
   * the inbox remembers what it read; a file whose version changed is read again.
   */
  readonly version: string
}

/** An opened file: its bytes as a stream, or why it is not read (a FIFO, a directory, over a size limit). */
export type OpenedFile =
  | {
      readonly _tag: "Regular"
      readonly size: number
      /** When it was last written, in milliseconds since the epoch. */
      readonly modifiedAt: number
      readonly bytes: Stream.Stream<Uint8Array, ConnectorFailed>
    }
  | { readonly _tag: "Unread"; readonly reason: string }

export interface Inbox {
  /** Where the inbox is, for messages (never with a credential). */
  readonly place: string
  /** Every entry of the inbox, by name in code-unit order. */
  readonly list: Effect.Effect<ReadonlyArray<InboxEntry>, ConnectorFailed>
  /** Opens a listed file; the handle is closed with the scope. */
  readonly open: (name: string) => Effect.Effect<OpenedFile, ConnectorFailed, Scope.Scope>
  /** The listing against what earlier complete fetches read (for a local directory, nothing). */
  readonly compare: (entries: ReadonlyArray<InboxEntry>) => Comparison
  /** Remembers these files as read and forgets those, once a fetch read all it planned. */
  readonly remember: (read: ReadonlyArray<InboxEntry>, forget: ReadonlyArray<InboxEntry>) => Effect.Effect<void>
  /** The most files one fetch reads, where the inbox has such a limit. */
  readonly maxFiles: number | undefined
}

export interface Comparison {
  /** Whether this version of the file was not read by an earlier, complete fetch. */
  readonly unread: (entry: InboxEntry) => boolean
  /** Whether a file read before has changed or gone since. */
  readonly rewritten: boolean
}

/** An inbox that remembers nothing: every file is unread. */
export const forgetful = {
  compare: (): Comparison => ({ unread: () => true, rewritten: false }),
  remember: () => Effect.void
}

/**
 * How an inbox remembers what complete fetches read, in `files` (name → version, kept by the
 * inbox across fetches). Files gone from the listing are forgotten when the fetch is remembered.
 */
export const remembering = (files: Map<string, string>) => {
  let listed: ReadonlySet<string> = new Set()
  return {
    compare: (entries: ReadonlyArray<InboxEntry>): Comparison => {
      listed = new Set(entries.map((entry) => entry.name))
      const changed = entries.some((entry) => files.has(entry.name) && files.get(entry.name) !== entry.version)
      const gone = [...files.keys()].some((name) => !listed.has(name))
      return { unread: (entry) => files.get(entry.name) !== entry.version, rewritten: changed || gone }
    },
    remember: (read: ReadonlyArray<InboxEntry>, forget: ReadonlyArray<InboxEntry>) =>
      Effect.sync(() => {
        for (const entry of read) files.set(entry.name, entry.version)
        for (const entry of forget) files.delete(entry.name)
        for (const name of files.keys()) if (!listed.has(name)) files.delete(name)
      })
  }
}

/** Which files a fetch reads, and what to remember once it has read them all. */
export interface ReadPlan {
  readonly files: ReadonlyArray<string>
  readonly done: Effect.Effect<void>
}

const names = (entries: ReadonlyArray<InboxEntry>) => entries.map((entry) => entry.name)

/**
 * For inboxes whose later-named files take precedence over earlier ones (exports: a newer
 * export's row replaces an older one's): every file from the first new one on, so nothing newer
 * is overridden by something older, and the rest keep what they gave. When a file read before
 * changed or went away, a row it gave may have to give way to an older file's again: all are
 * read. Over the inbox's file limit, the oldest are read now and the rest are forgotten, to be
 * read by the next fetch.
 */
export const planInNameOrder = (inbox: Inbox, entries: ReadonlyArray<InboxEntry>): ReadPlan => {
  const { unread, rewritten } = inbox.compare(entries)
  const first = rewritten ? 0 : entries.findIndex(unread)
  if (first === -1) return { files: [], done: Effect.void }
  const pending = entries.slice(first)
  const read = inbox.maxFiles === undefined ? pending : pending.slice(0, inbox.maxFiles)
  const forget = pending.slice(read.length)
  return { files: names(read), done: inbox.remember(read, forget) }
}

/**
 * For inboxes whose files refer to each other (an invoice in one, its status in another): all
 * of them when any is new, changed or gone, none otherwise. The inbox's file limit then holds
 * for the whole inbox: it cannot be read in parts.
 */
export const planWhole = (
  inbox: Inbox,
  entries: ReadonlyArray<InboxEntry>
): Effect.Effect<ReadPlan, ConnectorFailed> => {
  const { unread, rewritten } = inbox.compare(entries)
  if (!rewritten && !entries.some(unread)) return Effect.succeed({ files: [], done: Effect.void })
  if (inbox.maxFiles !== undefined && entries.length > inbox.maxFiles) {
    return Effect.fail(
      permanentFailure(
        `${inbox.place} holds ${entries.length.toLocaleString("en")} files, over the ${inbox.maxFiles.toLocaleString("en")} a sync reads (the "maxFiles" setting): raise it, or move documents already settled out of the directory`
      )
    )
  }
  return Effect.succeed({ files: names(entries), done: inbox.remember(entries, []) })
}
