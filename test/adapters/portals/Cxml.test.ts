import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import fc from "fast-check"
import { connector } from "../../../adapters/portals/cxml/CxmlConnector.ts"
import { parseXml, type XmlElement } from "../../../adapters/portals/cxml/Xml.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { escapeXml, invoiceDocument, statusDocument } from "./fixtures/cxml.ts"

const write = (element: XmlElement): string =>
  `<${element.name}${Object.entries(element.attributes)
    .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
    .join("")}>${escapeXml(element.text)}${element.children.map(write).join("")}</${element.name}>`

const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,6}$/)
const elementOf = (depth: number): fc.Arbitrary<XmlElement> =>
  fc.record({
    name,
    attributes: fc.dictionary(name, fc.string({ maxLength: 6 }), { maxKeys: 3 }),
    text: fc.string({ maxLength: 8 }),
    children: depth === 0 ? fc.constant([]) : fc.array(elementOf(depth - 1), { maxLength: 3 })
  })
const element = elementOf(3)

describe("the XML reader", () => {
  it("reads back any element tree written with escapes", () =>
    fc.assert(
      fc.property(element, (tree) => assert.deepStrictEqual(parseXml(`<?xml version="1.0"?>\n${write(tree)}`), tree)),
      { numRuns: 300 }
    ))

  it("skips the prolog, comments and a DOCTYPE with an internal subset; keeps CDATA and character references", () => {
    const root = parseXml(
      '<?xml version="1.0"?><!DOCTYPE cXML SYSTEM "cXML.dtd" [<!ENTITY x "y">]><!-- c --><a b=\'1 &amp; 2\'><![CDATA[<raw>]]>&#x41;&#66;<c/></a>'
    )
    assert.deepStrictEqual(root, {
      name: "a",
      attributes: { b: "1 & 2" },
      text: "<raw>AB",
      children: [{ name: "c", attributes: {}, children: [], text: "" }]
    })
  })

  it("refuses text that is not well-formed", () => {
    for (const text of ["<a><b></a>", "<a>", "<a></a><b/>", "text", "<a>&nope;</a>"]) {
      assert.throws(() => parseXml(text))
    }
  })
})

describe("the cxml connector", () => {
  it.effect("a deleted invoice is left out, a resent one counts once, and reconciled is not paid", () =>
    Effect.gen(function* () {
      const inbox = yield* temporaryDirectory("cxml")
      const documents = sampleDocuments(
        3,
        [["reconciled", "APPROVED"]],
        { decimalSeparator: ".", groupsThousands: false },
        true
      )
      const [a, b, c] = [documents.at(0), documents.at(1), documents.at(2)]
      const deletion = invoiceDocument(c).replace('operation="new"', 'operation="delete"')
      yield* Effect.promise(() =>
        Promise.all([
          writeFile(join(inbox, "1.xml"), invoiceDocument(a) + invoiceDocument(b)),
          writeFile(join(inbox, "2.xml"), invoiceDocument(a)),
          writeFile(join(inbox, "3.xml"), invoiceDocument(c)),
          writeFile(join(inbox, "4.xml"), deletion),
          writeFile(join(inbox, "5.xml"), statusDocument(a.key, a.receivableDate, "reconciled", "2026-11-20T10:00:00Z"))
        ])
      )
      const fetched = yield* Stream.runCollect(connector.fetch(pairToFetch({ inbox })))
      assert.deepStrictEqual(
        fetched.map((d) => [d.documentKey, d.portalStatus]),
        [
          [a.key, "reconciled"],
          [b.key, "submitted"]
        ]
      )
      assert.strictEqual(fetched[0]!.metadata.status_updated_at, "2026-11-20T10:00:00.000Z")
    })
  )
})
