/**
 * A benchmark's smoke mode (BENCH_SMOKE=1): the same code paths at tiny sizes, in seconds, so
 * that `npm test` runs every benchmark and one that stops working fails CI. Its figures mean
 * nothing; each benchmark picks its sizes with `sized`. Depends on nothing but the environment.
 */

export const smoke = process.env.BENCH_SMOKE === "1"

/** The full run's value, or the smoke run's. */
export const sized = <A>(full: A, small: A): A => (smoke ? small : full)

/** A numeric option from the environment, else the full or smoke default. */
export const option = (name: string, full: number, small: number): number => {
  const given = process.env[name]
  return given === undefined || given === "" ? sized(full, small) : Number(given)
}
