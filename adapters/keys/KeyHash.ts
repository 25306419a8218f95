/**
 * The stored form of an API key: its SHA-256 digest. Only the digest is ever persisted or
 * compared; the key itself exists only in the request that presents it.
 */
import { createHash } from "node:crypto"
import { Redacted } from "effect"

export const hashKey = (key: Redacted.Redacted<string>): Uint8Array =>
  createHash("sha256").update(Redacted.value(key), "utf8").digest()
