/**
 * Password hashing, a port because the memory-hard function (scrypt) comes from the platform,
 * not from `effect`. The stored text names its own parameters, so they can be raised later
 * without breaking passwords already set.
 */
import { Context, type Effect, type Redacted } from "effect"

export class PasswordHasher extends Context.Service<
  PasswordHasher,
  {
    /** A fresh salt and the hash, as one text to store. */
    readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
    /** Whether the password is the one hashed; a stored text it cannot read is "no". */
    readonly verify: (password: Redacted.Redacted<string>, stored: string) => Effect.Effect<boolean>
  }
>()("core/PasswordHasher") {}
