/** `IdSource` from the operating system's cryptographic randomness: 128 bits per identifier. */
import { randomBytes } from "node:crypto"
import { Layer } from "effect"
import { receivableIdFromBytes } from "../../core/domain/Ids.ts"
import { IdSource } from "../../core/ports/IdSource.ts"

export const layer = Layer.succeed(
  IdSource,
  IdSource.of({
    receivableId: () => receivableIdFromBytes(randomBytes(16)),
    eventId: () => `evt_${randomBytes(16).toString("hex")}`
  })
)
