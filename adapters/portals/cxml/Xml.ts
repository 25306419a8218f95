/**
 * A streaming XML reader for portal files, on `saxes`: text arrives chunk by chunk, and for each
 * document in it (a file may hold several, one after another) the reader builds only the
 * elements on the paths the caller wants, within documented limits. No DTD is fetched and no
 * entity is expanded beyond the five of XML and character references: a document that uses one
 * declared in its DOCTYPE is not well-formed here. Pure: no I/O, no Effect.
 */
import { SaxesParser, type SaxesTagPlain } from "saxes"

export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  /** The element's own text (not its children's), entities decoded. */
  readonly text: string
}

/** The bounds that keep one file's reading in bounded memory and time, whatever the file holds. */
export const xmlLimits = {
  /** One kept element's text, or one of its attribute values, in characters. */
  elementText: 64 * 1024,
  /** Everything kept of one document (names, attributes, text), in characters. */
  keptPerDocument: 1024 * 1024,
  /** One document, from its first character to the end of its root element, in characters. */
  document: 16 * 1024 * 1024,
  /** Elements nested in one another. */
  depth: 256
} as const

/** Where in the text: a line (from 1) and a column (from 0, in characters). */
export interface XmlPlace {
  readonly line: number
  readonly column: number
}

/** What the reader says about the text it was given, in order. */
export type XmlEvent =
  /** A document read whole: its root, with only the wanted elements (and their ancestors) kept. */
  | { readonly _tag: "Document"; readonly index: number; readonly line: number; readonly root: XmlElement }
  /** A well-formed document whose wanted elements were over a limit: it was read past, not kept. */
  | { readonly _tag: "Unreadable"; readonly index: number; readonly line: number; readonly reason: string }
  /** A document over a limit that bounds the reader itself: nothing after it is read. */
  | { readonly _tag: "Abandoned"; readonly index: number; readonly line: number; readonly reason: string }
  /** Not well-formed XML; nothing after it is read. */
  | { readonly _tag: "Malformed"; readonly index: number; readonly at: XmlPlace; readonly reason: string }
  /** The text ended inside a document (a file cut short, or still being written). */
  | { readonly _tag: "Incomplete"; readonly index: number; readonly line: number; readonly reason: string }

interface Building {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: Array<XmlElement>
  text: string
}

/** An open element: its path below the root (while above the wanted ones), whether it is inside a wanted one, what is built of it. */
interface Frame {
  readonly path: string
  readonly inside: boolean
  element: Building | undefined
}

// Every element neither wanted nor above a wanted one: nothing of it is built, nor of what it holds.
const skipped: Frame = { path: "", inside: false, element: undefined }

// Thrown from saxes' handlers to stop it in the middle of a chunk: at a document's end (the rest
// belongs to the next document) or at the first problem (nothing after it is read).
const halt = Symbol("halt")

const over = (what: string, limit: number) => `${what} is over the limit of ${limit.toLocaleString("en")} characters`

/**
 * A reader fed chunks of text. `wanted` are element paths below the root
 * (`Request/StatusUpdateRequest`; `""` wants everything): those elements, their descendants and
 * their ancestors are built, everything else is parsed and let go (`localNames`: element names
 * without their namespace prefix). After a `Malformed`,
 * `Abandoned` or `Incomplete` event the reader takes no more text.
 */
export const xmlReader = (wanted: ReadonlyArray<string>, options: { readonly localNames?: boolean } = {}) => {
  // UBL and UN/CEFACT documents qualify every element (`cbc:ID`, `ram:ID`) with a prefix each
  // sender picks: with `localNames`, elements are named and matched without it.
  const nameOf =
    options.localNames === true ? (name: string) => name.slice(name.indexOf(":") + 1) : (name: string) => name
  // Paths are compared whole, once per element: the wanted ones, and their ancestors.
  const wantsAll = wanted.includes("")
  const wantedPaths = new Set(wanted)
  const ancestors = new Set(wanted.flatMap((path) => path.split("/").map((_, i, names) => names.slice(0, i).join("/"))))

  let events: Array<XmlEvent> = []
  let stopped = false
  // Where the reader is in the whole text, and where the current document began.
  let line = 1
  let column = 0
  let index = 0
  let start: XmlPlace = { line: 1, column: 0 }
  let documentLength = 0
  // The current document's parser and what it has kept so far.
  let parser: SaxesParser | undefined
  let written = 0
  let closedAt = -1
  let closedPlace: XmlPlace = start
  let frames: Array<Frame> = []
  let root: XmlElement | undefined
  let kept = 0
  let unreadable: string | undefined

  const placeIn = (at: SaxesParser): XmlPlace => ({
    line: start.line + at.line - 1,
    column: at.line === 1 ? start.column + at.column : at.column
  })

  const stop = (event: XmlEvent): never => {
    stopped = true
    events.push(event)
    throw halt
  }

  const keep = (size: number) => {
    kept += size
    if (unreadable === undefined && kept > xmlLimits.keptPerDocument)
      unreadable = over("what its wanted elements hold", xmlLimits.keptPerDocument)
    return unreadable === undefined
  }

  // saxes gathers text only while a handler listens: it listens inside kept elements only, so
  // the text of everything else is neither copied nor held.
  const listen = (at: SaxesParser) => {
    if (frames[frames.length - 1]?.element !== undefined) at.on("text", text)
    else at.off("text")
  }

  const frameOf = (parent: Frame | undefined, name: string): Frame => {
    if (parent === undefined) return { path: "", inside: wantsAll, element: undefined }
    if (parent.element === undefined) return skipped
    if (parent.inside) return { path: "", inside: true, element: undefined }
    const path = parent.path === "" ? name : `${parent.path}/${name}`
    if (wantedPaths.has(path)) return { path, inside: true, element: undefined }
    return ancestors.has(path) ? { path, inside: false, element: undefined } : skipped
  }

  const open = (at: SaxesParser, tag: SaxesTagPlain) => {
    if (closedAt >= 0) throw halt
    if (frames.length >= xmlLimits.depth) {
      stop({
        _tag: "Abandoned",
        index,
        line: start.line,
        reason: `its elements are nested more than ${xmlLimits.depth} deep`
      })
    }
    const name = nameOf(tag.name)
    const frame = frameOf(frames[frames.length - 1], name)
    frames.push(frame)
    if (frame === skipped || !keep(name.length)) return
    for (const [attribute, value] of Object.entries(tag.attributes)) {
      if (value.length > xmlLimits.elementText) {
        unreadable ??= over(`the attribute ${attribute} of <${tag.name}>`, xmlLimits.elementText)
      }
      if (!keep(attribute.length + value.length)) return
    }
    frame.element = { name, attributes: tag.attributes, children: [], text: "" }
    listen(at)
  }

  const text = (content: string) => {
    if (closedAt >= 0) throw halt
    const current = frames[frames.length - 1]?.element
    if (current === undefined || unreadable !== undefined) return
    if (current.text.length + content.length > xmlLimits.elementText) {
      unreadable = over(`the text of <${current.name}>`, xmlLimits.elementText)
    } else if (keep(content.length)) current.text += content
  }

  const close = (at: SaxesParser) => {
    if (closedAt >= 0) throw halt
    const done = frames.pop()?.element
    const parent = frames[frames.length - 1]
    if (done !== undefined) {
      if (parent?.element !== undefined) parent.element.children.push(done)
      else if (parent === undefined) root = done
    }
    if (parent === undefined) {
      closedAt = at.position
      closedPlace = placeIn(at)
    } else listen(at)
  }

  const newParser = () => {
    const next = new SaxesParser({})
    parser = next
    written = 0
    closedAt = -1
    frames = []
    root = undefined
    kept = 0
    unreadable = undefined
    next.on("error", (error) => {
      // A problem found after the root closed belongs to what follows it: the next document.
      if (closedAt >= 0 && next.position > closedAt) throw halt
      stop({ _tag: "Malformed", index, at: placeIn(next), reason: error.message.replace(/^\d+:\d+: /, "") })
    })
    next.on("opentag", (tag) => open(next, tag))
    next.on("cdata", text)
    next.on("closetag", () => close(next))
  }

  const write = (current: SaxesParser, piece: string) => {
    try {
      current.write(piece)
    } catch (error) {
      if (error !== halt) throw error
    }
  }

  // Writes text to the current document; a document's end starts the next one on the rest.
  const feed = (chunk: string) => {
    let from = 0
    while (from < chunk.length && !stopped) {
      if (parser === undefined) {
        // Between documents: white space (and a byte-order mark) belongs to none.
        while (from < chunk.length && /\s/.test(chunk[from]!)) {
          if (chunk[from] === "\n") {
            line++
            column = 0
          } else column++
          from++
        }
        if (from >= chunk.length) return
        index++
        start = { line, column }
        documentLength = 0
        newParser()
      }
      const current = parser!
      const piece = from === 0 ? chunk : chunk.slice(from)
      const before = written
      write(current, piece)
      written += piece.length
      if (stopped) return
      if (closedAt >= 0) {
        // The root closed inside this piece; what follows it is read as the next document.
        events.push(
          unreadable === undefined
            ? { _tag: "Document", index, line: start.line, root: root! }
            : { _tag: "Unreadable", index, line: start.line, reason: unreadable }
        )
        ;({ line, column } = closedPlace)
        parser = undefined
        from += closedAt - before
        continue
      }
      documentLength += piece.length
      if (documentLength > xmlLimits.document) {
        stopped = true
        events.push({
          _tag: "Abandoned",
          index,
          line: start.line,
          reason: over("it", xmlLimits.document)
        })
      }
      return
    }
  }

  const take = () => {
    const out = events
    events = []
    return out
  }

  return {
    push: (chunk: string): ReadonlyArray<XmlEvent> => {
      if (!stopped) feed(chunk)
      return take()
    },
    end: (): ReadonlyArray<XmlEvent> => {
      if (!stopped && parser !== undefined) {
        events.push({
          _tag: "Incomplete",
          index,
          line: start.line,
          reason:
            frames.length > 0
              ? `the text ends with ${frames.length} of its elements not closed`
              : "the text ends before its root element"
        })
      }
      stopped = true
      return take()
    }
  }
}

/** The one document of a whole text, every element kept; throws when it is not exactly one well-formed document. */
export const parseXml = (source: string): XmlElement => {
  const reader = xmlReader([""])
  const events = [...reader.push(source), ...reader.end()]
  const problem = events.find((event) => event._tag !== "Document")
  if (problem !== undefined) throw new Error(`${problem._tag}: ${problem.reason}`)
  const [only, ...more] = events
  if (only?._tag !== "Document" || more.length > 0) throw new Error(`${events.length} documents, expected one`)
  return only.root
}

/** The first descendant at a path of element names (`Request/StatusUpdateRequest`), if any. */
export const childAt = (element: XmlElement | undefined, path: string): XmlElement | undefined =>
  path
    .split("/")
    .reduce<XmlElement | undefined>((current, name) => current?.children.find((child) => child.name === name), element)

/** Every direct child of that name. */
export const childrenNamed = (element: XmlElement | undefined, name: string): ReadonlyArray<XmlElement> =>
  element?.children.filter((child) => child.name === name) ?? []
