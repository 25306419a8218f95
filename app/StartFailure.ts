/**
 * Turns whatever stopped the app from starting into one line an operator can act on: which
 * setting or resource is wrong and why, never a stack trace or a secret.
 */
import { Cause, Config, Predicate } from "effect"
import { describeConfigError } from "./Settings.ts"

const codeOf = (error: unknown): string | undefined => {
  for (let current = error; Predicate.isObject(current); current = (current as { cause?: unknown }).cause) {
    if ("code" in current && Predicate.isString(current.code)) return current.code
  }
  return undefined
}

/** One line per problem: usually one, one per bad setting when settings are wrong. */
export const describeStartFailure = (cause: Cause.Cause<unknown>): ReadonlyArray<string> => {
  const error = Cause.squash(cause)
  if (Predicate.isObject(error) && "_tag" in error && error._tag === "InvalidSettings" && "problems" in error) {
    return (error.problems as ReadonlyArray<string>).map((problem) => `invalid configuration: ${problem}`)
  }
  return [describeOne(cause)]
}

const describeOne = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const tag = Predicate.isObject(error) && "_tag" in error ? error._tag : undefined
  const message = error instanceof Error ? error.message : String(error)
  switch (tag) {
    case "DatabaseUnavailable":
      return message
    case "ServeError": {
      const code = codeOf(error)
      if (code === "EADDRINUSE") return "cannot listen: the port is already in use (set PORT to another port)"
      if (code === "EACCES") return "cannot listen: permission denied for that port (set PORT above 1023)"
      if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
        return "cannot listen: HOST is not an address of this machine"
      return `cannot listen: ${code ?? message}`
    }
    case "ConfigError":
      return error instanceof Config.ConfigError
        ? `invalid configuration: ${describeConfigError(error)}`
        : `invalid configuration: ${message}`
    case "MigrationError":
      return `database migration failed: ${message}`
    default:
      return `failed to start: ${message}`
  }
}
