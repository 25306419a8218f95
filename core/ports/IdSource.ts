/** Fresh identifiers for new receivables and events; adapters supply the randomness. */
import { Context } from "effect"
import type { ReceivableId } from "../domain/Ids.ts"

export class IdSource extends Context.Service<
  IdSource,
  {
    readonly receivableId: () => ReceivableId
    /** `evt_` and 32 hexadecimal characters. */
    readonly eventId: () => string
  }
>()("core/IdSource") {}
