/**
 * An inbox in a directory on an SFTP server, as e-invoicing access points and supplier networks
 * deliver documents. One SSH connection per fetch, closed with it. The server must present the
 * pinned host key (the key itself or its SHA-256 fingerprint): any other key is refused before
 * a credential is sent, so a spoofed server learns nothing. The private key or password comes
 * from a secret reference at each fetch and reaches only the SSH library.
 *
 * Files are read as streams, up to `maxFileBytes` each and `maxFiles` a fetch. What a complete
 * fetch read (each file's name, size and modification time) is remembered in this process, per
 * integration, so the next fetch reads only files that are new or changed: a remote directory
 * of thousands of settled documents is not downloaded again every quarter of an hour. The sync
 * keeps receivables a fetch does not return, so a skipped file loses nothing; a process that
 * starts afresh reads everything once.
 */
import { createHash } from "node:crypto"
import { posix } from "node:path"
import { Effect, Option, Redacted, Schema, Stream } from "effect"
import { Client, type ConnectConfig, type SFTPWrapper, type Stats } from "ssh2"
import {
  type ConnectorFailed,
  type PairToFetch,
  permanentFailure,
  retryableFailure
} from "../../../core/receivables/ports/PortalConnector.ts"
import { SecretReference } from "../../../core/shared/ports/Secrets.ts"
import { type Inbox, type InboxEntry, type OpenedFile, remembering } from "./Inbox.ts"
import { notRegularReason } from "./LocalInbox.ts"

const NonEmpty = Schema.String.check(Schema.isNonEmpty())

const fingerprintPin = /^SHA256:([A-Za-z0-9+/]{43})=?$/
const keyPin =
  /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521)\s+([A-Za-z0-9+/]+={0,2})(\s.*)?$/

/** A pinned host key: `SHA256:…` as `ssh-keygen -lf` prints it, or the key line as `ssh-keyscan` prints it. */
export const HostKey = Schema.String.check(
  Schema.makeFilter((text: string) => fingerprintPin.test(text.trim()) || keyPin.test(text.trim()), {
    expected:
      'the server\'s host key: its SHA-256 fingerprint ("SHA256:…", from ssh-keygen -lf) or its public key line ("ssh-ed25519 AAAA…", from ssh-keyscan)'
  })
)

export const SftpSettings = Schema.Struct({
  host: NonEmpty,
  port: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65_535 }))),
  user: NonEmpty,
  /** An OpenSSH or PEM private key, as a secret reference; or `password`. */
  privateKey: Schema.optionalKey(SecretReference),
  /** The private key's passphrase, when it has one. */
  passphrase: Schema.optionalKey(SecretReference),
  password: Schema.optionalKey(SecretReference),
  /** The remote directory the documents arrive in. */
  directory: NonEmpty,
  hostKey: HostKey,
  /** The most files one sync reads (default 10,000). */
  maxFiles: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 }))),
  /** The largest file read, in bytes (default 256 MiB). */
  maxFileBytes: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 2 ** 40 }))),
  /** How long connecting and signing in may take, in seconds (default 30). */
  timeoutSeconds: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 300 })))
}).check(
  Schema.makeFilter((settings) =>
    (settings.privateKey === undefined) === (settings.password === undefined)
      ? { path: ["privateKey"], issue: "give exactly one of privateKey and password, each a secret reference" }
      : settings.passphrase !== undefined && settings.privateKey === undefined
        ? { path: ["passphrase"], issue: "a passphrase goes with a privateKey" }
        : undefined
  )
)
export type SftpSettings = typeof SftpSettings.Type

export const defaultMaxFiles = 10_000
export const defaultMaxFileBytes = 256 * 2 ** 20

/** The SHA-256 fingerprint of a host key, as OpenSSH prints it. */
export const fingerprintOf = (key: Uint8Array) =>
  `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`

/** Whether the key a server presented is the pinned one. */
export const hostKeyMatches = (pin: string, key: Uint8Array): boolean => {
  const text = pin.trim()
  const fingerprint = fingerprintPin.exec(text)
  if (fingerprint !== null) return fingerprintOf(key) === `SHA256:${fingerprint[1]}`
  const line = keyPin.exec(text)
  return line !== null && Buffer.from(line[2]!, "base64").equals(key)
}

// With the key itself pinned, only its type is negotiated: a server that also has keys of other
// types must present this one.
const hostKeyAlgorithms = (pin: string): Pick<ConnectConfig, "algorithms"> => {
  const type = keyPin.exec(pin.trim())?.[1]
  if (type === undefined) return {}
  return {
    algorithms: {
      serverHostKey: type === "ssh-rsa" ? ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] : [type as "ssh-ed25519"]
    }
  }
}

/** Files read by complete fetches, by integration and place: name → version. */
const remembered = new Map<string, Map<string, string>>()
// Integrations that went away are forgotten with the oldest: at most this many are remembered.
const rememberedIntegrations = 10_000

const memoryOf = (key: string) => {
  const known = remembered.get(key)
  if (known !== undefined) return known
  if (remembered.size >= rememberedIntegrations) remembered.delete(remembered.keys().next().value!)
  const created = new Map<string, string>()
  remembered.set(key, created)
  return created
}

const versionOf = (attrs: { readonly size: number; readonly mtime: number }) => `${attrs.size}:${attrs.mtime}`

const isRegular = (mode: number) => (mode & 0o170000) === 0o100000

const kindOfMode = (mode: number) => {
  switch (mode & 0o170000) {
    case 0o040000:
      return "a directory"
    case 0o010000:
      return "a named pipe (FIFO)"
    case 0o140000:
      return "a socket"
    case 0o020000:
    case 0o060000:
      return "a device"
    default:
      return "not a regular file"
  }
}

/**
 * One SFTP request. A file that cannot be read (gone, being replaced) may be readable at the next
 * run, as in a local directory; a directory that does not exist or may not be read (SFTP's "no
 * such file" and "permission denied", codes 2 and 3) is a configuration to mend.
 */
const sftpCall = <A>(
  place: string,
  what: string,
  call: (done: (error: unknown, value: A) => void) => void,
  missing: "permanent" | "retryable" = "retryable"
) =>
  Effect.callback<A, ConnectorFailed>((resume) => {
    call((error, value) =>
      resume(
        error === undefined || error === null
          ? Effect.succeed(value)
          : Effect.fail(
              missing === "permanent" && [2, 3].includes((error as { code?: unknown }).code as number)
                ? permanentFailure(`${place}: ${what}`)
                : retryableFailure(`${place}: ${what}`)
            )
      )
    )
  })

/** The connection's failure, classified: a refused host key or credentials wait; a network failure may pass. */
const connectFailure = (place: string, error: unknown, presented: Uint8Array | undefined, pin: string) => {
  if (presented !== undefined && !hostKeyMatches(pin, presented)) {
    return permanentFailure(
      `${place} presented the host key ${fingerprintOf(presented)}, not the pinned one: the connection was refused before signing in. If the server's key was changed on purpose, pin the new one ("hostKey")`
    )
  }
  const level = (error as { level?: unknown }).level
  const code = (error as { code?: unknown }).code
  if (level === "client-authentication") return permanentFailure(`${place} refused the credentials`)
  if (level === "client-timeout") return retryableFailure(`${place} did not answer in time`)
  return retryableFailure(`${place} cannot be reached${typeof code === "string" ? ` (${code})` : ""}`)
}

const connect = (settings: SftpSettings, pair: PairToFetch, place: string) =>
  Effect.gen(function* () {
    const credentials =
      settings.privateKey !== undefined
        ? {
            privateKey: Redacted.value(yield* pair.secret(settings.privateKey)),
            ...(settings.passphrase === undefined
              ? {}
              : { passphrase: Redacted.value(yield* pair.secret(settings.passphrase)) })
          }
        : { password: Redacted.value(yield* pair.secret(settings.password!)) }
    return yield* Effect.acquireRelease(
      Effect.callback<{ client: Client; sftp: SFTPWrapper }, ConnectorFailed>((resume) => {
        const client = new Client()
        let presented: Uint8Array | undefined
        let settled = false
        const settle = (effect: Effect.Effect<{ client: Client; sftp: SFTPWrapper }, ConnectorFailed>) => {
          if (settled) return
          settled = true
          resume(effect)
        }
        // Errors after the session is up surface through the SFTP calls that were under way.
        client.on("error", (error) => settle(Effect.fail(connectFailure(place, error, presented, settings.hostKey))))
        client.on("close", () => settle(Effect.fail(retryableFailure(`${place} closed the connection`))))
        // SFTP is a request and an answer per step of each file: without this, every small
        // request would wait for the previous one's acknowledgement (Nagle's algorithm).
        client.on("connect", () => client.setNoDelay(true))
        client.on("ready", () =>
          client.sftp((error, sftp) => {
            if (error) return settle(Effect.fail(retryableFailure(`${place} has no SFTP service`)))
            // Requests still under way when the connection closes fail through their own callbacks.
            sftp.on("error", () => {})
            settle(Effect.succeed({ client, sftp }))
          })
        )
        try {
          client.connect({
            host: settings.host,
            port: settings.port ?? 22,
            username: settings.user,
            ...credentials,
            readyTimeout: (settings.timeoutSeconds ?? 30) * 1000,
            hostVerifier: (key: Buffer) => {
              presented = Uint8Array.from(key)
              return hostKeyMatches(settings.hostKey, key)
            },
            ...hostKeyAlgorithms(settings.hostKey)
          })
        } catch {
          // The library parses the key before connecting; its message could quote the key.
          settle(
            Effect.fail(
              permanentFailure(
                `${place}: the private key cannot be read (is it the key, in OpenSSH or PEM form, and its passphrase right?)`
              )
            )
          )
        }
        return Effect.sync(() => client.end())
      }),
      ({ client }) => Effect.sync(() => client.end())
    )
  })

interface Listed {
  readonly mode: number
  readonly size: number
  readonly mtime: number
}

/** The directory's entries by name, with what the listing says of each (kind, size, time). */
const listing = (sftp: SFTPWrapper, directory: string, place: string) =>
  Effect.gen(function* () {
    const handle = yield* sftpCall<Buffer>(
      place,
      `the directory ${directory} cannot be opened`,
      (done) => sftp.opendir(directory, done),
      "permanent"
    )
    const entries = new Map<string, Listed>()
    // Read batch by batch, keeping only each entry's name and version.
    for (;;) {
      const batch = yield* Effect.callback<
        ReadonlyArray<{ filename: string; attrs: Stats }> | undefined,
        ConnectorFailed
      >((resume) =>
        sftp.readdir(handle, (error, list) => {
          if (error && (error as { code?: unknown }).code === 1) return resume(Effect.succeed(undefined))
          if (error) return resume(Effect.fail(retryableFailure(`${place}: the directory cannot be listed`)))
          resume(Effect.succeed(list))
        })
      )
      if (batch === undefined) break
      for (const entry of batch) {
        if (entry.filename === "." || entry.filename === "..") continue
        const { mode, size, mtime } = entry.attrs
        entries.set(entry.filename, { mode, size, mtime })
      }
    }
    yield* Effect.callback<void>((resume) => sftp.close(handle, () => resume(Effect.void)))
    return entries
  })

const chunkBytes = 64 * 1024

const sizeText = (bytes: number) =>
  bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes.toLocaleString("en")} bytes`

/** The inbox on the SFTP server of `settings`, connected for the scope of a fetch. */
export const sftpInbox = (settings: SftpSettings, pair: PairToFetch) =>
  Effect.gen(function* () {
    const port = settings.port ?? 22
    const place = `the SFTP server ${settings.user}@${settings.host}:${port}`
    const maxFileBytes = settings.maxFileBytes ?? defaultMaxFileBytes
    const { sftp } = yield* connect(settings, pair, place)
    const memory = memoryOf(`${pair.integrationId}\u0000${settings.user}@${settings.host}:${port}${settings.directory}`)
    const pathOf = (file: string) => posix.join(settings.directory, file)
    // The last listing: a file is opened as listed (one request less a file).
    let listed = new Map<string, Listed>()
    const open = Effect.fnUntraced(function* (file: string) {
      // A symbolic link is listed as itself: what it points to is asked for.
      const entry = listed.get(file)
      const stats =
        entry !== undefined && (entry.mode & 0o170000) !== 0o120000
          ? entry
          : yield* sftpCall<Stats>(place, `${file} cannot be read`, (done) => sftp.stat(pathOf(file), done))
      if (!isRegular(stats.mode)) {
        return { _tag: "Unread", reason: notRegularReason(file, kindOfMode(stats.mode)) } satisfies OpenedFile
      }
      if (stats.size > maxFileBytes) {
        return {
          _tag: "Unread",
          reason: `${file} is ${stats.size.toLocaleString("en")} bytes, over the ${sizeText(maxFileBytes)} a file may have (the "maxFileBytes" setting)`
        } satisfies OpenedFile
      }
      const path = pathOf(file)
      const handle = yield* Effect.acquireRelease(
        sftpCall<Buffer>(place, `${file} cannot be read`, (done) => sftp.open(path, "r", done)),
        // Not waited for: the server closes it in order, before anything sent after.
        (handle) => Effect.sync(() => sftp.close(handle, () => {}))
      )
      // Read to the end, a chunk at a time: a file still being written is read as far as it goes,
      // but never past the limit.
      const bytes = Stream.paginate(0, (position: number) =>
        Effect.gen(function* () {
          const buffer = Buffer.allocUnsafe(chunkBytes)
          const length = yield* sftpCall<number>(place, `${file} cannot be read`, (done) =>
            sftp.read(handle, buffer, 0, chunkBytes, position, (error, read) => done(error, read))
          )
          if (position + length > maxFileBytes) {
            return yield* retryableFailure(
              `${file} grew past ${sizeText(maxFileBytes)} while it was read (the "maxFileBytes" setting)`
            )
          }
          const chunk: ReadonlyArray<Uint8Array> = length === 0 ? [] : [buffer.subarray(0, length)]
          return [chunk, length === 0 ? Option.none<number>() : Option.some(position + length)] as const
        })
      )
      return { _tag: "Regular", size: stats.size, modifiedAt: stats.mtime * 1000, bytes } satisfies OpenedFile
    })
    const inbox: Inbox = {
      place: `${place}, directory ${settings.directory}`,
      list: Effect.map(listing(sftp, settings.directory, place), (entries) => {
        listed = entries
        return [...entries.keys()]
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          .map((name): InboxEntry => ({ name, version: versionOf(entries.get(name)!) }))
      }),
      open,
      ...remembering(memory),
      maxFiles: settings.maxFiles ?? defaultMaxFiles
    }
    return inbox
  })
