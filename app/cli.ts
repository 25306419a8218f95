/**
 * The operator CLI (`npm run cli -- <command>`): organizations, API keys, vendors, debtors,
 * integrations, syncs, the demo, the audit log, dashboard users, webhook endpoints, a restored database and status normalization, one
 * module per command group in `commands/`. Commands that need the database run against DATABASE_URL or the embedded
 * database (shared with a running app). Every command prints a readable answer, or JSON with
 * `--json`; an unknown id or a bad argument is one line on stderr and exit code 1.
 */
// The package's modules one by one: its index loads the HTTP server and client too, which would
// double the time `--help` takes.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit } from "effect"
import { CliError, Command } from "effect/cli"
import { liveKeyLimitMessage } from "../core/access/services/ApiKeys.ts"
import { visible } from "../core/shared/domain/VisibleText.ts"
import { audit } from "./commands/AuditCommands.ts"
import { withDatabase } from "./commands/Common.ts"
import { database } from "./commands/DatabaseCommands.ts"
import { demo } from "./commands/DemoCommands.ts"
import { integration } from "./commands/IntegrationCommands.ts"
import { key } from "./commands/KeyCommands.ts"
import { org } from "./commands/OrgCommands.ts"
import { debtor, vendor } from "./commands/PartyCommands.ts"
import { status } from "./commands/StatusCommand.ts"
import { sync } from "./commands/SyncCommands.ts"
import { user } from "./commands/UserCommands.ts"
import { webhook } from "./commands/WebhookCommands.ts"

export const cli = Command.make("partner-receivables").pipe(
  Command.withDescription("Operate the Partner Receivables service"),
  Command.withSubcommands([
    withDatabase(org),
    withDatabase(key),
    withDatabase(vendor),
    withDatabase(debtor),
    withDatabase(integration),
    withDatabase(sync),
    withDatabase(demo),
    withDatabase(audit),
    withDatabase(user),
    withDatabase(webhook),
    withDatabase(database),
    status
  ])
)

// A refusal may repeat what it refuses (an id, a name): shown, never acting on the terminal.
const refuse = (line: string) =>
  Effect.sync(() => {
    process.stderr.write(`partner-receivables: ${visible(line)}\n`)
    process.exitCode = 1
  })

// What else can fail (a database that cannot be used, a bad setting) is described as a failed
// start would be; that description reads every setting, so it is loaded only then.
const describeFailure = (cause: Cause.Cause<unknown>) =>
  Effect.promise(() => import("./StartFailure.ts")).pipe(
    Effect.flatMap((module) => refuse(module.describeStartFailure(cause).join("; ")))
  )

if (import.meta.main) {
  Command.run(cli, { version: "0.1.0" }).pipe(
    Effect.provide(NodeServices.layer),
    // Domain refusals are one line on stderr and exit code 1.
    Effect.catchTags({
      OrganizationNotFound: (error) => refuse(`no organization with id "${error.id}"`),
      ApiKeyNotFound: (error) => refuse(`no API key with id "${error.id}"`),
      LiveKeyLimitReached: (error) => refuse(`no key created: ${liveKeyLimitMessage(error)}`),
      DirectoryRefused: (error) => refuse(error.message),
      EmailTaken: (error) => refuse(`${error.email} is already a user of another organization`),
      InvalidEmail: () => refuse("--email: not an e-mail address"),
      UserNotFound: () => refuse("--email: no such user in that organization"),
      LastAdmin: () => refuse("refused: the organization would have no admin left"),
      WebhookEndpointNotFound: (error) => refuse(`no webhook endpoint with id "${error.id}" in that organization`),
      WebhookEndpointDisabled: (error) => refuse(`webhook endpoint ${error.id} is disabled: enable it first`),
      WebhookEndpointBusy: (error) =>
        refuse(`webhook endpoint ${error.id} has as many attempts in flight as it may: test it again shortly`),
      WebhookDeliveryNotFound: (error) => refuse(`no webhook delivery with id "${error.id}" in that organization`),
      WebhookUrlRejected: (error) => refuse(`--url: ${error.message}`),
      WebhookEndpointRejected: (error) => refuse(`${error.field}: ${error.message}`),
      WebhookReplayRejected: (error) => refuse(`no replay: ${error.message}`)
    }),
    Effect.catchCause((cause) =>
      // The parser has already shown its own message and the usage.
      CliError.isCliError(Cause.squash(cause))
        ? Effect.sync(() => {
            process.exitCode = 1
          })
        : describeFailure(cause)
    ),
    (program) =>
      NodeRuntime.runMain(program, {
        disableErrorReporting: true,
        teardown: (exit, onExit) =>
          onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : Number(process.exitCode ?? 0))
      })
  )
}
