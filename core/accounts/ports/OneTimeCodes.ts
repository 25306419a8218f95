/**
 * Time-based one-time codes (RFC 6238, SHA-1, six digits, 30-second steps) as an authenticator
 * app computes them: a new shared secret, the code of a given step, and the `otpauth://` URI that
 * hands the secret to the app. Which steps are accepted, and that each is accepted once, is policy
 * (`core/accounts/services/SecondFactors.ts`).
 */
import { Context, type Effect, type Redacted } from "effect"

export class OneTimeCodes extends Context.Service<
  OneTimeCodes,
  {
    /** A new secret of 160 random bits, in base32 (what authenticator apps take). */
    readonly newSecret: Effect.Effect<Redacted.Redacted<string>>
    /** The code of time step `step` (seconds since the epoch divided by 30). */
    readonly codeAt: (secret: Redacted.Redacted<string>, step: number) => string
    readonly uri: (secret: Redacted.Redacted<string>, issuer: string, account: string) => string
  }
>()("core/OneTimeCodes") {}
