/**
 * A small, non-validating XML reader for portal documents: elements, attributes, text, the five
 * named entities and numeric character references, CDATA; the prolog, comments, processing
 * instructions and the DOCTYPE are skipped (and its DTD is never fetched, so reading a document
 * contacts nobody). It throws on text that is not well-formed, with the offset.
 */

export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  /** The element's own text (not its children's), entities decoded. */
  readonly text: string
}

const named: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }

const decodeEntities = (text: string, at: number): string =>
  text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (_, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16))
    if (entity.startsWith("#")) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10))
    const value = named[entity]
    if (value === undefined) throw new Error(`unknown entity &${entity}; near offset ${at}`)
    return value
  })

const attributePattern = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g

interface Building {
  readonly name: string
  readonly attributes: Record<string, string>
  readonly children: Array<XmlElement>
  text: string
}

/** The document's root element. */
export const parseXml = (source: string): XmlElement => {
  const stack: Array<Building> = []
  let root: XmlElement | undefined
  let i = 0
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}`)
  }
  const skipPast = (terminator: string) => {
    const end = source.indexOf(terminator, i)
    if (end < 0) fail(`unterminated markup, expected "${terminator}"`)
    i = end + terminator.length
  }
  while (i < source.length) {
    const open = source.indexOf("<", i)
    const text = source.slice(i, open < 0 ? source.length : open)
    const current = stack[stack.length - 1]
    if (current !== undefined) current.text += decodeEntities(text, i)
    else if (text.trim() !== "") fail("text outside the root element")
    if (open < 0) break
    i = open
    if (source.startsWith("<!--", i)) skipPast("-->")
    else if (source.startsWith("<?", i)) skipPast("?>")
    else if (source.startsWith("<![CDATA[", i)) {
      const end = source.indexOf("]]>", i)
      if (end < 0 || current === undefined) fail("misplaced or unterminated CDATA")
      current!.text += source.slice(i + 9, end)
      i = end + 3
    } else if (source.startsWith("<!DOCTYPE", i)) {
      // An internal subset is in brackets; the declaration ends at the first ">" after it.
      const bracket = source.indexOf("[", i)
      const close = source.indexOf(">", i)
      if (bracket >= 0 && bracket < close) {
        i = bracket
        skipPast("]")
      }
      skipPast(">")
    } else if (source.startsWith("</", i)) {
      const end = source.indexOf(">", i)
      if (end < 0) fail("unterminated end tag")
      const name = source.slice(i + 2, end).trim()
      const element = stack.pop()
      if (element === undefined || element.name !== name) fail(`unexpected </${name}>`)
      const done: XmlElement = {
        name,
        attributes: element!.attributes,
        children: element!.children,
        text: element!.text
      }
      i = end + 1
      const parent = stack[stack.length - 1]
      if (parent !== undefined) parent.children.push(done)
      else if (root === undefined) root = done
      else fail("a second root element")
    } else {
      let end = i + 1
      let quote: string | undefined
      for (; end < source.length; end++) {
        const char = source[end]
        if (quote !== undefined) {
          if (char === quote) quote = undefined
        } else if (char === '"' || char === "'") quote = char
        else if (char === ">") break
      }
      if (end >= source.length) fail("unterminated start tag")
      const selfClosing = source[end - 1] === "/"
      const inside = source.slice(i + 1, selfClosing ? end - 1 : end)
      const name = /^[^\s/>]+/.exec(inside)?.[0] ?? fail("a tag without a name")
      const attributes: Record<string, string> = {}
      for (const match of inside.slice(name.length).matchAll(attributePattern)) {
        attributes[match[1]!] = decodeEntities(match[3] ?? match[4] ?? "", i)
      }
      i = end + 1
      if (selfClosing) {
        const element: XmlElement = { name, attributes, children: [], text: "" }
        const parent = stack[stack.length - 1]
        if (parent !== undefined) parent.children.push(element)
        else if (root === undefined) root = element
        else fail("a second root element")
      } else {
        stack.push({ name, attributes, children: [], text: "" })
      }
    }
  }
  if (stack.length > 0) fail(`<${stack[stack.length - 1]!.name}> is not closed`)
  return root ?? fail("no root element")
}

/** The first descendant at a path of element names (`Request/StatusUpdateRequest`), if any. */
export const childAt = (element: XmlElement | undefined, path: string): XmlElement | undefined =>
  path
    .split("/")
    .reduce<XmlElement | undefined>((current, name) => current?.children.find((child) => child.name === name), element)

/** Every direct child of that name. */
export const childrenNamed = (element: XmlElement | undefined, name: string): ReadonlyArray<XmlElement> =>
  element?.children.filter((child) => child.name === name) ?? []
