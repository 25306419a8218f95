/**
 * `PasswordHasher` with scrypt from `node:crypto`: memory-hard, so guessing on graphics cards
 * costs what it costs here. N = 2^15, r = 8, p = 1 (32 MiB and about 100 ms a hash on one core),
 * a 16-byte random salt and a 32-byte result, stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`
 * (base64url), so that stronger parameters can come later and older hashes still verify.
 * Node's async scrypt runs on libuv's thread pool, off the event loop; at most
 * `PASSWORD_HASHES_IN_FLIGHT` hashes run at once (default 2), and one past that is refused at once
 * (`HashingBusy`), so that a storm of sign-ins cannot take every core the API needs. Sign-ins wait
 * for their turn before they get here (`core/accounts/services/HashTurns.ts`); this cap also holds
 * the hashes of invites and of passwords confirmed on the account page.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { HashingBusy, PasswordHasher } from "../../core/accounts/ports/PasswordHasher.ts"
import { defaultHashesInFlight, hashesInFlight } from "../../core/accounts/services/HashTurns.ts"

export interface ScryptCost {
  readonly log2N: number
  readonly r: number
  readonly p: number
}

export const defaultCost: ScryptCost = { log2N: 15, r: 8, p: 1 }

const keyLength = 32

const derive = (password: string, salt: Buffer, cost: ScryptCost) =>
  Effect.callback<Buffer>((resume) => {
    const N = 2 ** cost.log2N
    // Room for scrypt's 128 * N * r bytes and a little more.
    scrypt(password, salt, keyLength, { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    )
  })

const parse = (stored: string) => {
  const [scheme, log2N, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return undefined
  const cost = { log2N: Number(log2N), r: Number(r), p: Number(p) }
  const valid = [cost.log2N, cost.r, cost.p].every((n) => Number.isInteger(n) && n >= 1) && cost.log2N <= 20
  return valid ? { cost, salt: Buffer.from(salt, "base64url"), hash: Buffer.from(hash, "base64url") } : undefined
}

/** `Retry-After` counts whole seconds; a hash in flight ends within about a tenth of one. */
const busy = new HashingBusy({ retryAfterSeconds: 1 })

export const make = (cost: ScryptCost = defaultCost, inFlight = defaultHashesInFlight) => {
  let running = 0
  // A place is taken and given back around the hash, which cannot be interrupted: scrypt cannot be
  // stopped once started, so a request that goes away must not free a place its hash still uses.
  const capped = <A>(work: Effect.Effect<A>): Effect.Effect<A, HashingBusy> =>
    Effect.suspend(() => {
      if (running >= inFlight) return Effect.fail(busy)
      running++
      return Effect.ensuring(
        Effect.uninterruptible(work),
        Effect.sync(() => running--)
      )
    })
  return PasswordHasher.of({
    hash: (password) =>
      Effect.gen(function* () {
        const salt = randomBytes(16)
        const key = yield* capped(derive(Redacted.value(password), salt, cost))
        return ["scrypt", cost.log2N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$")
      }).pipe(Effect.withSpan("ScryptPasswordHasher.hash")),
    verify: (password, stored) =>
      Effect.gen(function* () {
        const parsed = parse(stored)
        if (parsed === undefined || parsed.hash.length !== keyLength) return false
        const key = yield* capped(derive(Redacted.value(password), parsed.salt, parsed.cost))
        return timingSafeEqual(key, parsed.hash)
      }).pipe(Effect.withSpan("ScryptPasswordHasher.verify"))
  })
}

export const layer = Layer.effect(
  PasswordHasher,
  Effect.map(hashesInFlight, (cap) => make(defaultCost, cap))
)

/**
 * Cheap parameters for tests, where neither the memory-hardness nor the cap is what is being
 * checked (tests of the cap build their own with `make`).
 */
export const layerTest = Layer.succeed(PasswordHasher, make({ log2N: 10, r: 8, p: 1 }, 1_000))
