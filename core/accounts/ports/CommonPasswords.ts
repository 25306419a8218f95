/**
 * The common and breached passwords a new password must not be (`core/accounts/domain/PasswordRules.ts`
 * says how it is compared): a port because the list is a file shipped with the app
 * (`adapters/passwords/`), which the core cannot read.
 */
import { Context } from "effect"

export class CommonPasswords extends Context.Service<
  CommonPasswords,
  {
    /** Whether the text, in lower case, is on the list. */
    readonly isListed: (lowerCase: string) => boolean
  }
>()("core/CommonPasswords") {}
