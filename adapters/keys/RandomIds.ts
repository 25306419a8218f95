/**
 * `IdSource` from the operating system's cryptographic randomness: 128 bits per identifier.
 * Randomness is drawn 4 KiB at a time (256 identifiers): a sync creates two identifiers per new
 * receivable, and one system call each cost more than the rest of planning it.
 */
import { randomFillSync } from "node:crypto"
import { Layer } from "effect"
import { receivableIdFromBytes } from "../../core/domain/Ids.ts"
import { IdSource } from "../../core/ports/IdSource.ts"

/**
 * `size` fresh random bytes per call, from a pool refilled when used up; each byte is handed out
 * once. Also used for request ids: one system call per request cost more than the id is worth.
 */
export const randomSource = (size: number, poolSize = 4096) => {
  const pool = Buffer.alloc(poolSize)
  let offset = poolSize
  return (): Buffer => {
    if (offset + size > poolSize) {
      randomFillSync(pool)
      offset = 0
    }
    const bytes = Buffer.from(pool.subarray(offset, offset + size))
    offset += size
    return bytes
  }
}

export const layer = Layer.sync(IdSource, () => {
  const next = randomSource(16)
  return IdSource.of({
    receivableId: () => receivableIdFromBytes(next()),
    eventId: () => `evt_${next().toString("hex")}`
  })
})
