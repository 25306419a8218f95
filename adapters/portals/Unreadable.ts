/**
 * The document a connector gives for something a portal sent that it could not read (a row
 * without a key, a file that is not a regular file, a document over a limit): the sync
 * quarantines it with the reasons, so nothing a portal sent is dropped without a word. Its key
 * is a locator (`orders.csv row 7`), never taken for a receivable's.
 */
import type { FetchedDocument } from "../../core/receivables/domain/PairSync.ts"

export const unreadableDocument = (
  locator: string,
  reasons: ReadonlyArray<string>,
  metadata: Readonly<Record<string, string>> = {}
): FetchedDocument => ({
  documentKey: locator,
  vendorReceivableId: null,
  amountCents: Number.NaN,
  currency: "",
  receivableDate: "",
  dueDate: null,
  portalStatus: "",
  poNumber: null,
  metadata,
  unreadable: reasons
})
