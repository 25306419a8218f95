/**
 * Bytes to text for portal files and answers: a byte-order mark (UTF-8, UTF-16LE, UTF-16BE)
 * decides the encoding, else the declared one does; bytes that are not valid in it are an error
 * that says where, never U+FFFD in stored text. Decoding is incremental (a chunk at a time, a
 * character cut between chunks completed by the next). Pure: Node's `TextDecoder` (full ICU) only.
 */
import { TextDecoder } from "node:util"
import { Result, Schema } from "effect"

/** The encodings a portal's text may be declared in. `latin1` and `iso-8859-1` read as `windows-1252`, as browsers do. */
export const Encoding = Schema.Literals(["utf-8", "utf-16le", "utf-16be", "latin1", "iso-8859-1", "windows-1252"])
export type Encoding = typeof Encoding.Type

type Marked = "utf-8" | "utf-16le" | "utf-16be"

const marks: ReadonlyArray<readonly [Marked, ReadonlyArray<number>]> = [
  ["utf-8", [0xef, 0xbb, 0xbf]],
  ["utf-16le", [0xff, 0xfe]],
  ["utf-16be", [0xfe, 0xff]]
]

/** The encoding a byte-order mark at the start of these bytes names, and the mark's length. */
export const byteOrderMark = (
  bytes: Uint8Array
): { readonly encoding: Marked; readonly length: number } | undefined => {
  for (const [encoding, mark] of marks) {
    if (mark.every((byte, i) => bytes[i] === byte)) return { encoding, length: mark.length }
  }
  return undefined
}

/** Why bytes could not be read: the encoding tried, whether a byte-order mark chose it, and about where. */
export interface NotDecodable {
  readonly encoding: string
  readonly fromMark: boolean
  /** The offset of the first byte that could not be decoded, as near as the decoder tells. */
  readonly byteOffset: number
}

// Bytes at the start of a chunk that end a character begun in the one before: a fresh decoder
// would take them for an error, so the search for the first bad byte starts after them.
const carriedOver = (label: string, bytes: Uint8Array) => {
  if (label === "utf-8") {
    let n = 0
    while (n < 3 && n < bytes.length && (bytes[n]! & 0xc0) === 0x80) n++
    return n
  }
  if (label === "utf-16le" || label === "utf-16be") {
    const unit = label === "utf-16le" ? bytes[0]! | (bytes[1]! << 8) : (bytes[0]! << 8) | bytes[1]!
    return bytes.length >= 2 && unit >= 0xdc00 && unit <= 0xdfff ? 2 : 0
  }
  return 0
}

// The longest prefix a streaming decoder accepts: bytes up to there are valid (a character cut at
// the end is allowed), so the first bad byte is right after it. Found by halving, a few decodes.
const validPrefix = (label: string, chunk: Uint8Array) => {
  const skipped = carriedOver(label, chunk)
  const bytes = chunk.subarray(skipped)
  let good = 0
  let bad = bytes.length
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1
    const decoded = Result.try(() =>
      new TextDecoder(label, { fatal: true }).decode(bytes.subarray(0, middle), { stream: true })
    )
    if (Result.isSuccess(decoded)) good = middle
    else bad = middle
  }
  return skipped + good
}

/**
 * A decoder fed chunks of bytes; each call gives the text completed so far. `declared` is the
 * encoding when no byte-order mark says otherwise, or reads it from the first bytes (an XML
 * declaration's `encoding`).
 */
export const textDecoding = (declared: string | ((head: Uint8Array) => string)) => {
  let decoder: TextDecoder | undefined
  let chosen = { encoding: typeof declared === "string" ? declared : "utf-8", fromMark: false }
  let offset = 0
  // The first bytes, held until there are enough to see a byte-order mark.
  let head = new Uint8Array(0)

  const decode = (bytes: Uint8Array, stream: boolean): Result.Result<string, NotDecodable> => {
    if (decoder === undefined) {
      const mark = byteOrderMark(bytes)
      chosen =
        mark !== undefined
          ? { encoding: mark.encoding, fromMark: true }
          : { encoding: typeof declared === "string" ? declared : declared(bytes), fromMark: false }
      decoder = new TextDecoder(chosen.encoding, { fatal: true, ignoreBOM: true })
      offset = mark?.length ?? 0
      bytes = bytes.subarray(offset)
    }
    const current = decoder
    const text = Result.try(() => current.decode(bytes, { stream }))
    if (Result.isSuccess(text)) {
      offset += bytes.length
      return Result.succeed(text.success)
    }
    return Result.fail({ ...chosen, byteOffset: offset + validPrefix(chosen.encoding, bytes) })
  }

  return {
    push: (chunk: Uint8Array): Result.Result<string, NotDecodable> => {
      if (decoder === undefined && head.length + chunk.length < 3) {
        head = Buffer.concat([head, chunk])
        return Result.succeed("")
      }
      const bytes = decoder === undefined && head.length > 0 ? Buffer.concat([head, chunk]) : chunk
      head = new Uint8Array(0)
      return decode(bytes, true)
    },
    end: (): Result.Result<string, NotDecodable> => decode(head, false),
    /** The encoding in use (known after the first bytes), and whether a byte-order mark chose it. */
    encoding: () => chosen
  }
}

/** Whether `TextDecoder` knows this label (a `charset` parameter, an XML declaration's `encoding`). */
export const knownEncoding = (label: string): boolean => Result.isSuccess(Result.try(() => new TextDecoder(label)))
