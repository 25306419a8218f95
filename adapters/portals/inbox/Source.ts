/**
 * The inbox an inbox connector's configuration names: a local directory under the connector's
 * own field (`inbox`, `directory`), or `sftp` in its place. Exactly one of the two.
 */
import { Effect, Schema, type Scope } from "effect"
import type { ConnectorFailed, PairToFetch } from "../../../core/receivables/ports/PortalConnector.ts"
import type { Inbox } from "./Inbox.ts"
import { localInbox } from "./LocalInbox.ts"
import { type SftpSettings, sftpInbox } from "./SftpInbox.ts"

/** The check a connector's configuration carries: its directory field or `sftp`, not both, not neither. */
export const oneInbox = <Field extends string>(field: Field) =>
  Schema.makeFilter((config: { readonly [K in Field]?: unknown } & { readonly sftp?: unknown }) =>
    (config[field] === undefined) === (config.sftp === undefined)
      ? { path: [field], issue: `give exactly one of "${field}" (a local directory) and "sftp"` }
      : undefined
  )

/** The inbox of a configuration whose `oneInbox` check passed; `place` names a local directory in messages. */
export const openInbox = (
  directory: string | undefined,
  sftp: SftpSettings | undefined,
  pair: PairToFetch,
  place: (directory: string) => string
): Effect.Effect<Inbox, ConnectorFailed, Scope.Scope> =>
  sftp !== undefined ? sftpInbox(sftp, pair) : Effect.succeed(localInbox(directory!, place(directory!)))
