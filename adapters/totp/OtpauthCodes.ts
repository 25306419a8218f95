/**
 * `OneTimeCodes` with the `otpauth` library: HMAC-SHA-1 from its bundled `@noble/hashes`, secrets
 * from the platform's `crypto.getRandomValues`. The library's own window and validation are not
 * used: the core decides which steps count.
 */
import { Effect, Layer, Redacted } from "effect"
import * as OTPAuth from "otpauth"
import { OneTimeCodes } from "../../core/accounts/ports/OneTimeCodes.ts"

const totp = (secret: Redacted.Redacted<string>, issuer = "", label = "") =>
  new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(Redacted.value(secret))
  })

export const layer = Layer.succeed(
  OneTimeCodes,
  OneTimeCodes.of({
    newSecret: Effect.sync(() => Redacted.make(new OTPAuth.Secret({ size: 20 }).base32)),
    codeAt: (secret, step) => totp(secret).generate({ timestamp: step * 30_000 }),
    uri: (secret, issuer, account) => totp(secret, issuer, account).toString()
  })
)
