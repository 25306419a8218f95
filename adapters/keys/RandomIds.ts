/**
 * `IdSource` from the operating system's cryptographic randomness: 128 bits per identifier.
 * Randomness is drawn 4 KiB at a time (256 identifiers): a sync creates two identifiers per new
 * receivable, and one system call each cost more than the rest of planning it.
 */
import { randomFillSync } from "node:crypto"
import { Layer } from "effect"
import { receivableIdFromBytes } from "../../core/domain/Ids.ts"
import { IdSource } from "../../core/ports/IdSource.ts"

const idBytes = 16

/** 16 fresh random bytes per call, from a pool refilled when used up; each byte is handed out once. */
export const randomSource = (poolSize = 4096) => {
  const pool = Buffer.alloc(poolSize)
  let offset = poolSize
  return (): Buffer => {
    if (offset + idBytes > poolSize) {
      randomFillSync(pool)
      offset = 0
    }
    const bytes = Buffer.from(pool.subarray(offset, offset + idBytes))
    offset += idBytes
    return bytes
  }
}

export const layer = Layer.sync(IdSource, () => {
  const next = randomSource()
  return IdSource.of({
    receivableId: () => receivableIdFromBytes(next()),
    eventId: () => `evt_${next().toString("hex")}`
  })
})
