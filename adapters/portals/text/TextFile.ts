/**
 * Reading a file a portal left in a directory, as text: only a regular file is read (a FIFO, a
 * device or a directory in an export directory would block a read forever or never end), it is
 * decoded as `Decoding.ts` says, and it arrives as a stream of chunks, with a turn of the event
 * loop between chunks, so a file of any size is read in bounded memory without holding up the
 * process's other work.
 */
import { constants, type Stats } from "node:fs"
import { open } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Result, type Scope, Stream } from "effect"
import {
  type ConnectorFailed,
  permanentFailure,
  retryableFailure
} from "../../../core/receivables/ports/PortalConnector.ts"
import { type NotDecodable, textDecoding } from "./Decoding.ts"

/** A file in a portal's directory: its text as a stream, or what it is instead of a regular file. */
export type PortalFile =
  | {
      readonly _tag: "Text"
      readonly size: number
      /** When it was last written, in milliseconds since the epoch. */
      readonly modifiedAt: number
      readonly chunks: Stream.Stream<string, ConnectorFailed>
    }
  | { readonly _tag: "NotRegular"; readonly what: string }

const kindOf = (stats: Stats) =>
  stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
      ? "a named pipe (FIFO)"
      : stats.isSocket()
        ? "a socket"
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? "a device"
          : "not a regular file"

/** A turn of the event loop: timers, sockets and other fibers' I/O run before the next chunk. */
export const yieldToEventLoop = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

const chunkBytes = 64 * 1024

/** The message for bytes that are not valid in the encoding used; `hint` says what to change. */
export const notDecodableMessage = (file: string, problem: NotDecodable, hint: string) =>
  `${file} is not valid ${problem.encoding} at byte ${problem.byteOffset}` +
  (problem.fromMark ? ` (its byte-order mark says ${problem.encoding})` : `: ${hint}`)

/**
 * Opens `file` in `directory`. Opening never blocks (a FIFO opens without a writer) and the
 * file's kind is read from the opened file itself, so nothing can swap it in between. A file
 * that cannot be opened (gone, locked, being replaced) is a retryable failure: the next run may
 * read it. The handle is closed with the scope.
 */
export const openPortalFile = Effect.fn("openPortalFile")(function* (
  directory: string,
  file: string,
  options: {
    readonly encoding: string | ((head: Uint8Array) => string)
    readonly notDecodable: (problem: NotDecodable) => string
  }
): Effect.fn.Return<PortalFile, ConnectorFailed, Scope.Scope> {
  const handle = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => open(join(directory, file), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)),
      catch: () => retryableFailure(`${file} cannot be read`)
    }),
    (opened) => Effect.promise(() => opened.close())
  )
  const stats = yield* Effect.tryPromise({
    try: () => handle.stat(),
    catch: () => retryableFailure(`${file} cannot be read`)
  })
  if (!stats.isFile()) return { _tag: "NotRegular", what: kindOf(stats) }
  const decoding = textDecoding(options.encoding)
  const decoded = (result: Result.Result<string, NotDecodable>) =>
    Result.isSuccess(result)
      ? Effect.succeed(result.success)
      : Effect.fail(permanentFailure(options.notDecodable(result.failure)))
  const chunks: Stream.Stream<string, ConnectorFailed> = Stream.fromAsyncIterable(
    handle.createReadStream({ highWaterMark: chunkBytes, autoClose: false }),
    () => retryableFailure(`${file} cannot be read`)
  ).pipe(
    Stream.mapEffect((bytes: Buffer) => Effect.andThen(yieldToEventLoop, decoded(decoding.push(bytes)))),
    Stream.concat(Stream.fromEffect(Effect.suspend(() => decoded(decoding.end())))),
    Stream.filter((text) => text !== "")
  )
  return { _tag: "Text", size: stats.size, modifiedAt: stats.mtimeMs, chunks }
})
