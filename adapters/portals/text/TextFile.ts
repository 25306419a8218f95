/**
 * Reading a file a portal left in an inbox (a local directory or an SFTP server, see
 * `../inbox/`), as text: it is decoded as `Decoding.ts` says, and it arrives as a stream of
 * chunks, with a turn of the event loop between chunks, so a file of any size is read in bounded
 * memory without holding up the process's other work.
 */
import { Effect, Result, type Scope, Stream } from "effect"
import { type ConnectorFailed, permanentFailure } from "../../../core/receivables/ports/PortalConnector.ts"
import type { Inbox } from "../inbox/Inbox.ts"
import { type NotDecodable, textDecoding } from "./Decoding.ts"

/** A file in a portal's inbox: its text as a stream, or why it is not read (not a regular file, too large). */
export type PortalFile =
  | {
      readonly _tag: "Text"
      readonly size: number
      /** When it was last written, in milliseconds since the epoch. */
      readonly modifiedAt: number
      readonly chunks: Stream.Stream<string, ConnectorFailed>
    }
  | { readonly _tag: "Unread"; readonly reason: string }

/** A turn of the event loop: timers, sockets and other fibers' I/O run before the next chunk. */
export const yieldToEventLoop = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** The message for bytes that are not valid in the encoding used; `hint` says what to change. */
export const notDecodableMessage = (file: string, problem: NotDecodable, hint: string) =>
  `${file} is not valid ${problem.encoding} at byte ${problem.byteOffset}` +
  (problem.fromMark ? ` (its byte-order mark says ${problem.encoding})` : `: ${hint}`)

/** Opens `file` in `inbox` as text; the file is closed with the scope. */
export const openPortalFile = Effect.fn("openPortalFile")(function* (
  inbox: Inbox,
  file: string,
  options: {
    readonly encoding: string | ((head: Uint8Array) => string)
    readonly notDecodable: (problem: NotDecodable) => string
  }
): Effect.fn.Return<PortalFile, ConnectorFailed, Scope.Scope> {
  const opened = yield* inbox.open(file)
  if (opened._tag === "Unread") return opened
  const decoding = textDecoding(options.encoding)
  const decoded = (result: Result.Result<string, NotDecodable>) =>
    Result.isSuccess(result)
      ? Effect.succeed(result.success)
      : Effect.fail(permanentFailure(options.notDecodable(result.failure)))
  const chunks: Stream.Stream<string, ConnectorFailed> = opened.bytes.pipe(
    Stream.mapEffect((bytes) => Effect.andThen(yieldToEventLoop, decoded(decoding.push(bytes)))),
    Stream.concat(Stream.fromEffect(Effect.suspend(() => decoded(decoding.end())))),
    Stream.filter((text) => text !== "")
  )
  return { _tag: "Text", size: opened.size, modifiedAt: opened.modifiedAt, chunks }
})
