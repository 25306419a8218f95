/**
 * Slips a reader sees in a page's text that no template check catches: a count of one with a
 * plural noun ("The last 1 runs", "1 receivables match"), which comes from a count interpolated
 * beside a fixed word. The browser tests run it on the text of every page they visit.
 */

/** Words that end in "s" and may follow "1" correctly. */
const singularEndingInS = new Set(["is", "was", "has", "does", "its", "this", "status", "address", "access", "class"])

/** The slips in `text`, each as the words around it. */
export const copySlips = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/(?<![\d.,:/-])\b1 ([a-z]+s)\b/g)]
    .filter((match) => !singularEndingInS.has(match[1]!))
    .map((match) => text.slice(Math.max(0, match.index - 30), match.index + match[0].length + 10).replace(/\s+/g, " "))
