/**
 * Identifiers of the domain. Receivables carry `rcv_` + 32 lower-case hex characters; vendors,
 * debtors, organizations, integrations, API keys and dashboard users are UUIDs. Brands keep one
 * kind of id from being passed where another is expected.
 */
import { Schema } from "effect"

const Uuid = Schema.String.check(Schema.isUUID())

// The `u` flag lets the pattern reach JSON Schema (and the OpenAPI document), whose patterns are Unicode.
export const ReceivableId = Schema.String.check(Schema.isPattern(/^rcv_[0-9a-f]{32}$/u)).pipe(
  Schema.brand("ReceivableId")
)
export type ReceivableId = typeof ReceivableId.Type

export const VendorId = Uuid.pipe(Schema.brand("VendorId"))
export type VendorId = typeof VendorId.Type

export const DebtorId = Uuid.pipe(Schema.brand("DebtorId"))
export type DebtorId = typeof DebtorId.Type

export const OrgId = Uuid.pipe(Schema.brand("OrgId"))
export type OrgId = typeof OrgId.Type

export const PairId = Uuid.pipe(Schema.brand("PairId"))
export type PairId = typeof PairId.Type

export const ApiKeyId = Uuid.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const UserId = Uuid.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

const hexPairs = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"))

/** Formats 16 bytes as a receivable id; the caller supplies them (random, or led by the time). */
export const receivableIdFromBytes = (bytes: Uint8Array): ReceivableId => {
  if (bytes.length !== 16) throw new RangeError(`a receivable id needs 16 bytes, got ${bytes.length}`)
  let hex = ""
  for (const byte of bytes) hex += hexPairs[byte]
  return `rcv_${hex}` as ReceivableId
}
