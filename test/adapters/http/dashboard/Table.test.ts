/**
 * The dashboard's tables as the server writes them: inside their scrolling region, and each value
 * naming its column (`data-label`), which a phone shows beside it where the rows are cards. Whatever
 * the columns, the rows (a row heading or none, a cell left out as `null`) and the cells' own
 * attributes, each value carries the name of the column it sits under, and nothing else changes.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { html } from "htm/preact"
import { render } from "preact-render-to-string"
import { table } from "../../../../adapters/http/dashboard/frame/Parts.ts"

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,/]{0,14}$/)

const arbitraryTable = fc
  .record({ labels: fc.uniqueArray(word, { minLength: 1, maxLength: 6 }), rowHeading: fc.boolean() })
  .chain(({ labels, rowHeading }) =>
    fc.record({
      labels: fc.constant(labels),
      rowHeading: fc.constant(rowHeading),
      rows: fc.array(
        fc.array(fc.record({ text: word, numeric: fc.boolean(), gap: fc.boolean() }), {
          minLength: labels.length,
          maxLength: labels.length
        }),
        { maxLength: 5 }
      )
    })
  )

describe("a dashboard table", () => {
  it("names each value's column, under a row heading or not, with cells left out as null", () => {
    fc.assert(
      fc.property(arbitraryTable, ({ labels, rowHeading, rows }) => {
        const page = render(
          table(
            "Caption",
            labels,
            rows.map(
              (cells) => html`<tr>
                ${cells.map((cell, column) =>
                  column === 0 && rowHeading
                    ? html`<th scope="row">${cell.text}</th>`
                    : html`${cell.gap ? null : ""}<td class=${cell.numeric ? "number" : undefined}>${cell.text}</td>`
                )}
              </tr>`
            )
          )
        )
        assert.match(page, /^<div class="table-scroll" role="region" aria-label="Caption" tabindex="0"><table>/)
        const body = page.split("<tbody>")[1]!.split("</tbody>")[0]!
        const shown = [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
          [...row[1]!.matchAll(/<(td|th)([^>]*)>(.*?)<\/\1>/g)].map(([, tag, attributes, text]) => ({
            tag,
            label: /data-label="([^"]*)"/.exec(attributes!)?.[1],
            numeric: / class="number"/.test(attributes!),
            text
          }))
        )
        assert.deepStrictEqual(
          shown,
          rows.map((cells) =>
            cells.map((cell, column) =>
              column === 0 && rowHeading
                ? { tag: "th", label: undefined, numeric: false, text: cell.text }
                : { tag: "td", label: labels[column], numeric: cell.numeric, text: cell.text }
            )
          )
        )
      })
    )
  })
})
