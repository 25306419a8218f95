/**
 * Password hashing, a port because the memory-hard function (scrypt) comes from the platform,
 * not from `effect`. The stored text names its own parameters, so they can be raised later
 * without breaking passwords already set. Hashing is the dearest thing a request can ask for, so
 * an implementation may cap the hashes in flight and refuse one past the cap at once.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"

/** As many hashes are being computed as the cap allows: nothing was computed, try again shortly. */
export class HashingBusy extends Schema.TaggedError<HashingBusy>()("HashingBusy", {
  retryAfterSeconds: Schema.Number
}) {}

export class PasswordHasher extends Context.Service<
  PasswordHasher,
  {
    /** A fresh salt and the hash, as one text to store. */
    readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string, HashingBusy>
    /** Whether the password is the one hashed; a stored text it cannot read is "no". */
    readonly verify: (password: Redacted.Redacted<string>, stored: string) => Effect.Effect<boolean, HashingBusy>
  }
>()("core/PasswordHasher") {}
