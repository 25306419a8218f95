/** Fresh identifiers for new receivables and requests; adapters supply the randomness. */
import { Context } from "effect"
import type { ReceivableId } from "../domain/Ids.ts"

export class IdSource extends Context.Service<
  IdSource,
  {
    readonly receivableId: () => ReceivableId
    /** `req_` and 24 hexadecimal characters: a request's id in its `Request-Id` and the audit log. */
    readonly requestId: () => string
  }
>()("core/IdSource") {}
