/**
 * Which content coding to answer in, from a request's `Accept-Encoding` (RFC 9110 12.5.3): the
 * acceptable coding of the highest weight among brotli, gzip and identity, brotli first on a tie
 * (smaller at the same cost, `bench/compression`). One pass over the field, no backtracking and
 * no list built, so a hostile field costs time linear in its length and constant memory.
 */

export type Coding = "br" | "gzip" | "identity"

/** Where `char` first occurs in `field` between `from` and `to`, else `to`: never reads past `to`. */
const indexIn = (field: string, char: string, from: number, to: number) => {
  for (let i = from; i < to; i++) if (field[i] === char) return i
  return to
}

/** A member's weight: its `q` parameter, 1 without one; undefined when the `q` is malformed. */
const weightOf = (field: string, from: number, to: number): number | undefined => {
  let weight = 1
  for (let at = from; at < to; ) {
    const end = indexIn(field, ";", at + 1, to)
    const parameter = field.slice(at + 1, end).trim()
    if (parameter.length > 1 && (parameter[0] === "q" || parameter[0] === "Q")) {
      const value = parameter.slice(1).trimStart()
      if (value[0] === "=") {
        const text = value.slice(1).trim()
        // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
        if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text)) return undefined
        weight = Number(text)
      }
    }
    at = end
  }
  return weight
}

/**
 * The coding for `field` (the header as received; Node joins repeated headers with commas).
 * Without the header, identity: clients that can decompress say so. When the client refuses
 * identity and accepts nothing we offer, identity still (RFC 9110 allows it; a 406 helps nobody).
 */
export const negotiate = (field: string | undefined): Coding => {
  if (field === undefined) return "identity"
  let br: number | undefined
  let gzip: number | undefined
  let identity: number | undefined
  let any: number | undefined
  let from = 0
  while (from <= field.length) {
    const to = indexIn(field, ",", from, field.length)
    const nameEnd = indexIn(field, ";", from, to)
    const name = field.slice(from, nameEnd).trim().toLowerCase()
    if (name === "br" || name === "gzip" || name === "x-gzip" || name === "identity" || name === "*") {
      const weight = weightOf(field, nameEnd, to)
      if (weight !== undefined) {
        // A coding listed twice keeps its best weight.
        if (name === "br") br = Math.max(br ?? 0, weight)
        else if (name === "identity") identity = Math.max(identity ?? 0, weight)
        else if (name === "*") any = Math.max(any ?? 0, weight)
        else gzip = Math.max(gzip ?? 0, weight)
      }
    }
    from = to + 1
  }
  const brWeight = br ?? any ?? 0
  const gzipWeight = gzip ?? any ?? 0
  const best = Math.max(brWeight, gzipWeight)
  // Identity, always acceptable unless refused (12.5.3), is preferred only when weighed higher.
  const identityWeight = identity ?? any
  if (best === 0 || (identityWeight !== undefined && identityWeight > best)) return "identity"
  return brWeight === best ? "br" : "gzip"
}
