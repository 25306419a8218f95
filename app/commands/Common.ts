/**
 * What every command of the operator CLI shares: the `--json` flag, printing a readable answer
 * or JSON, timestamps as ISO text, and the database-backed services, loaded only when a command
 * that needs them runs (so `--help` and `status` start without them).
 */
import { Console, DateTime, Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { inertJson, visible } from "../../core/shared/domain/VisibleText.ts"

export const json = Flag.Boolean("json").pipe(Flag.withDescription("Print JSON for scripts"), Flag.withDefault(false))

/**
 * Readable lines, each with its control and bidirectional characters shown as code points: what
 * the CLI prints comes from outside (names, paths clients sent, portals' errors), and must never
 * act on the operator's terminal. A line break inside a line is shown too, so no value can fake
 * a line of its own.
 */
export const show = (lines: ReadonlyArray<string>) => Console.log(lines.map(visible).join("\n"))

/** JSON for scripts (inert on a terminal too), or the readable `lines`. */
export const print = (asJson: boolean, value: unknown, lines: () => ReadonlyArray<string>) =>
  asJson ? Console.log(inertJson(value, 2)) : show(lines())

export const time = (instant: DateTime.Utc | null) => (instant === null ? null : DateTime.formatIso(instant))

export const orgFlag = Flag.String("org").pipe(Flag.withDescription("The organization's id"))

// The services over PostgreSQL, imported on first use: the drivers and adapters are most of the
// CLI's start-up time, and a command that needs no database should not pay for them.
const DatabaseServices = Layer.unwrap(
  Effect.promise(() => import("../CliServices.ts")).pipe(Effect.map((module) => module.layer))
)

/** Runs the command's handlers with the database-backed services. */
export const withDatabase = <Name extends string, Input, ContextInput, E, R>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) => command.pipe(Command.provide(DatabaseServices))
