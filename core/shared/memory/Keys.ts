/**
 * How the memory twins key and order their rows, as PostgreSQL does: ids compared without regard
 * to case (the `uuid` type), ids unique within an organization keyed with it, text in the C
 * collation's order. Shared by every context's twins so that they agree with one another and with
 * the database.
 */

/** An id as the tables key it: UUIDs compare without regard to case. */
export const idKey = <A extends string>(id: A): A => id.toLowerCase() as A

/** The key of a row whose id is unique within its organization. */
export const rowKey = (org: string, id: string) => `${idKey(org)}/${idKey(id)}`

/** Text in code point order, as PostgreSQL's C collation (the embedded server's) orders it. */
export const compareText = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}
