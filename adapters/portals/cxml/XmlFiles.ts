/**
 * XML documents in an inbox file, as a stream of the reader's events: the file is opened as the
 * inbox connectors open files (`openPortalFile`: regular files only, decoded in bounded memory),
 * decoded as its byte-order mark or XML declaration says, and read by `Xml.ts`. What can only fail
 * the run (a file that is not well-formed, or cut short) fails it here, classified: a file cut
 * short and written to recently is most likely still being written, so it is retried sooner.
 * Shared by every connector whose documents are XML files (`cxml`, `peppol`, `fr-lifecycle`), over any inbox
 * (a local directory or an SFTP server).
 */
import { Effect, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import {
  type ConnectorFailed,
  permanentFailure,
  retryableFailure
} from "../../../core/receivables/ports/PortalConnector.ts"
import type { Inbox, InboxEntry } from "../inbox/Inbox.ts"
import { knownEncoding } from "../text/Decoding.ts"
import { notDecodableMessage, openPortalFile } from "../text/TextFile.ts"
import { unreadableDocument } from "../Unreadable.ts"
import { type XmlElement, type XmlEvent, xmlReader } from "./Xml.ts"

/**
 * A copy of a string that does not share memory with the document it was cut from: V8 keeps a
 * whole file's text alive for any slice of it, and the statuses outlive their documents.
 */
export const detached = (text: string) => Buffer.from(text, "utf8").toString("utf8")

/**
 * A function that hands back one detached copy of each text it is given, remembering the first
 * 1,000 distinct ones: the few words a survey keeps for every document (status types, reasons)
 * then share their memory, and an inbox of unusual words costs no more than detaching each.
 */
export const interner = () => {
  const interned = new Map<string, string>()
  return (text: string) => {
    const known = interned.get(text)
    if (known !== undefined) return known
    const copy = detached(text)
    if (interned.size < 1_000) interned.set(copy, copy)
    return copy
  }
}

/** Where a document is, in the messages of what could not be read. */
export const locator = (file: string, event: { readonly index: number }) => `${file} document ${event.index}`

/**
 * The report of an event that gives no document to read (a file not read, a document skipped,
 * the rest of a file abandoned), named by its file and line; `undefined` for any other event.
 * `what` names the documents in the reasons ("cXML document").
 */
export const notReadReport = (
  file: string,
  event: InboxEvent,
  what = "document"
): ReadonlyArray<FetchedDocument> | undefined => {
  const reference = { file_reference: file }
  switch (event._tag) {
    case "Unread":
      return [unreadableDocument(file, [event.reason], reference)]
    case "Abandoned":
      return [
        unreadableDocument(
          locator(file, event),
          [`the ${what} from line ${event.line} was not read, nor anything after it in ${file}: ${event.reason}`],
          reference
        )
      ]
    case "Unreadable":
      return [
        unreadableDocument(
          locator(file, event),
          [`the ${what} from line ${event.line} was not read: ${event.reason}`],
          reference
        )
      ]
    default:
      return undefined
  }
}

// cXML and UBL write decimals as xsd:decimal, possibly with more places than cents need ("12.500").
export const moneyText = (money: XmlElement | undefined) =>
  money?.text
    .trim()
    .replace(/(\.\d\d)0+$/, "$1")
    .replace(/\.0$/, "")

// xs:decimal: an optional sign, then digits with an optional fraction (`+1234.56`, `.5`, `5.`);
// no grouping, brackets or exponent, which XML amounts never carry.
const xsDecimal = /^([+-]?)(\d*)(?:\.(\d*))?$/

// The decimals a currency has (2 for EUR, 0 for JPY, 3 for KWD); 2 for a code Intl does not know.
const currencyDigits = (currency: string) => {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/**
 * An XML amount (`xs:decimal`) in exact cents, or why it cannot be one: receivables are kept in
 * hundredths, so a value with a third decimal other than zero is refused with the reason (a
 * three-decimal currency, or more decimals than the currency has), never rounded.
 */
export const decimalCents = (
  written: string,
  currency: string | undefined
): { readonly cents: number } | { readonly problem: string } => {
  const value = written.trim()
  const shown = `"${value.slice(0, 32)}"`
  const parts = xsDecimal.exec(value)
  if (parts === null || (parts[2] === "" && (parts[3] ?? "") === ""))
    return { problem: `${shown} is not a decimal number` }
  const fraction = (parts[3] ?? "").replace(/0+$/, "")
  if (fraction.length > 2) {
    const digits = currencyDigits(currency ?? "")
    return {
      problem:
        digits > 2
          ? `${shown} has ${fraction.length} decimals: ${currency} has ${digits}, and amounts are kept in hundredths, so it cannot be read exactly`
          : `${shown} has ${fraction.length} decimals, more than ${currency === undefined ? "an amount's 2" : `${currency}'s ${digits}`}`
    }
  }
  const total = BigInt(parts[2] || "0") * 100n + BigInt(fraction.padEnd(2, "0"))
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return { problem: `${shown} is too large to be an amount` }
  return { cents: parts[1] === "-" && total !== 0n ? -Number(total) : Number(total) }
}

/**
 * A file cut short in the middle of a document and written to this recently is most likely
 * still being written: retried sooner. One unchanged for longer will not mend by itself.
 */
export const stillWritingMinutes = 10

// XML is UTF-8 unless a byte-order mark or the first XML declaration's `encoding` says otherwise.
const declaredEncoding = (head: Uint8Array) => {
  const prolog = Buffer.from(head.subarray(0, 256)).toString("latin1")
  const label = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(prolog)?.[1]
  return label !== undefined && knownEncoding(label) ? label.toLowerCase() : "utf-8"
}

export type InboxEvent = XmlEvent | { readonly _tag: "Unread"; readonly reason: string }

/**
 * What one inbox file holds, document by document; a file that is not well-formed fails the run.
 * `format` names the documents in messages (`cXML`); `paths` are the elements to keep.
 */
export const xmlEventsIn = (
  inbox: Inbox,
  file: string,
  now: number,
  paths: ReadonlyArray<string>,
  options: { readonly format: string; readonly localNames?: boolean }
): Stream.Stream<InboxEvent, ConnectorFailed> =>
  Stream.unwrap(
    Effect.map(
      openPortalFile(inbox, file, {
        encoding: declaredEncoding,
        notDecodable: (problem) =>
          notDecodableMessage(
            file,
            problem,
            `${options.format} is read as UTF-8 unless a byte-order mark or the XML declaration's encoding says otherwise`
          )
      }),
      (opened): Stream.Stream<InboxEvent, ConnectorFailed> => {
        if (opened._tag === "Unread") return Stream.make(opened)
        const reader = xmlReader(paths, { localNames: options.localNames ?? false })
        const checked = (events: ReadonlyArray<XmlEvent>) =>
          Effect.forEach(events, (event) => {
            switch (event._tag) {
              case "Malformed":
                return Effect.fail(
                  permanentFailure(
                    `${file} is not well-formed XML at line ${event.at.line}, column ${event.at.column}: ${event.reason}`
                  )
                )
              case "Incomplete": {
                const recent = now - opened.modifiedAt < stillWritingMinutes * 60_000
                const where = `${file} ends in an incomplete ${options.format} document (from line ${event.line}: ${event.reason})`
                return Effect.fail(
                  recent
                    ? retryableFailure(`${where}; it may still be being written`)
                    : permanentFailure(`${where}, unchanged for more than ${stillWritingMinutes} minutes`)
                )
              }
              default:
                return Effect.succeed(event)
            }
          })
        return opened.chunks.pipe(
          Stream.mapEffect((chunk) => checked(reader.push(chunk))),
          Stream.concat(Stream.fromEffect(Effect.suspend(() => checked(reader.end())))),
          Stream.flattenIterable
        )
      }
    )
  )

/** The `*.xml` files of an inbox's listing, in name order. */
export const xmlFilesOf = (entries: ReadonlyArray<InboxEntry>) =>
  entries.filter((entry) => entry.name.toLowerCase().endsWith(".xml"))
