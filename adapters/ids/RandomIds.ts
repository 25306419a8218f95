/**
 * `IdSource` from the operating system's cryptographic randomness. Randomness is drawn 4 KiB at a
 * time (256 identifiers): a sync creates two identifiers per new receivable, and one system call
 * each cost more than the rest of planning it. Event ids are 128 random bits; receivable ids lead
 * with the time they were made (below).
 */
import { randomFillSync } from "node:crypto"
import { Layer } from "effect"
import { receivableIdFromBytes } from "../../core/shared/domain/Ids.ts"
import { IdSource } from "../../core/shared/ports/IdSource.ts"

/**
 * `size` fresh random bytes per call, from a pool refilled when used up; each byte is handed out
 * once. Request ids are drawn so too: one system call per request cost more than the id is worth.
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

/**
 * 16 bytes in the layout of a version 7 UUID (RFC 9562): milliseconds since 1970 in the first six
 * bytes, then 74 random bits. Receivables are keyed by id, and ids made close in time sit side by
 * side in the key's index: a sync's new receivables fill a few index pages at its end instead of
 * touching one page each at random places, which in a large table are mostly not in memory. The
 * time the id shows is no secret: a receivable's `detected_at` tells it too.
 */
export const timeOrdered = (random: Uint8Array, epochMillis: number): Uint8Array => {
  const bytes = Uint8Array.from(random)
  for (let i = 5, time = epochMillis; i >= 0; i--, time = Math.floor(time / 256)) bytes[i] = time % 256
  bytes[6] = 0x70 | (bytes[6]! & 0x0f)
  bytes[8] = 0x80 | (bytes[8]! & 0x3f)
  return bytes
}

export const layer = Layer.sync(IdSource, () => {
  const next = randomSource(16)
  const nextForRequest = randomSource(12)
  return IdSource.of({
    receivableId: () => receivableIdFromBytes(timeOrdered(next(), Date.now())),
    requestId: () => `req_${nextForRequest().toString("hex")}`
  })
})
