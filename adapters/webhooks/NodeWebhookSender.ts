/**
 * `WebhookSender` over Node's `http`/`https`: a delivery is posted with the outbound policy
 * applied at connect time, to every address the host resolves to (the connection goes to the
 * address checked, so DNS cannot change between the check and the connect), on the port the URL
 * names; the service's own listeners and database are refused there whatever the operator
 * allows; redirects are not followed (Node's client never does); only the first `answerBytes` of
 * an answer are read; no answer in 15 s is a timeout. Settings: `WEBHOOK_ALLOWED_HOSTS`
 * (`host:port` and `host:first-last` allowed beside public addresses, `http` included; empty by
 * default).
 */
import { lookup as systemLookup } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { networkInterfaces } from "node:os"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import { attemptTimeout } from "../../core/webhooks/domain/WebhookSchedule.ts"
import { WebhookUrlRejected } from "../../core/webhooks/domain/Webhooks.ts"
import { type OutboundRequest, type SendOutcome, WebhookSender } from "../../core/webhooks/ports/WebhookSender.ts"
import {
  type Address,
  type Allowance,
  addressProblem,
  bareHost,
  isThisMachine,
  isWildcard,
  type OwnListener,
  parseAddress,
  parseAllowance,
  portOf,
  sameAddress,
  urlProblem
} from "./OutboundPolicy.ts"

/** `WEBHOOK_ALLOWED_HOSTS`: `host:port` and `host:first-last`, separated by commas; empty by default. */
export const allowedHosts = Config.schema(
  Schema.String.check(
    Schema.makeFilter(
      (text) => {
        const allowance = parseAllowance(text)
        return typeof allowance === "string" ? allowance : true
      },
      { expected: "host:port or host:first-last entries separated by commas, e.g. hooks.internal:8443,10.1.0.0/16:80" }
    )
  ),
  "WEBHOOK_ALLOWED_HOSTS"
).pipe(
  Config.withDefault(""),
  Config.map((text) => parseAllowance(text) as Allowance)
)

/** How names resolve: every address, as the system's resolver answers; tests pass their own. */
export type Resolve = (host: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: 4 | 6 }>>

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    systemLookup(host, { all: true }, (error, addresses) =>
      error === null
        ? resolve(addresses.map((a) => ({ address: a.address, family: a.family as 4 | 6 })))
        : reject(error)
    )
  )

/** The most of an answer's body read and kept. */
export const answerBytes = 4096

class Blocked extends Error {}

/** The addresses of this machine's interfaces, read when asked: they may change while it runs. */
const interfaceAddresses = (): ReadonlyArray<Address> =>
  Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => {
      const parsed = info === undefined ? undefined : parseAddress(info.address)
      return parsed === undefined ? [] : [parsed]
    })

interface Target {
  readonly host: string
  readonly port: number
  readonly address: Address
}

/**
 * Whether the target is one of the service's own listeners or its database: on its port, by the
 * listener's name, by an address its host resolves to, or (for a wildcard or a host of this
 * machine) by any address of this machine.
 */
const isOwn = async (own: ReadonlyArray<OwnListener>, resolve: Resolve, target: Target): Promise<boolean> => {
  for (const listener of own) {
    if (listener.port !== target.port) continue
    if (listener.host.toLowerCase() === target.host.toLowerCase()) return true
    const interfaces = interfaceAddresses()
    const local = isThisMachine(target.address, interfaces)
    if (isWildcard(listener.host) && local) return true
    const literal = parseAddress(listener.host)
    const addresses =
      literal !== undefined
        ? [literal]
        : await resolve(listener.host).then(
            (found) => found.flatMap(({ address }) => parseAddress(address) ?? []),
            // A name that does not resolve now reaches nothing now: its name was compared above.
            (): ReadonlyArray<Address> => []
          )
    if (addresses.some((address) => sameAddress(address, target.address))) return true
    if (local && addresses.some((address) => isThisMachine(address, interfaces))) return true
  }
  return false
}

/** Why the target may not receive webhooks: the operator's policy, then the service's own listeners. */
const targetProblem = async (
  allowance: Allowance,
  own: ReadonlyArray<OwnListener>,
  resolve: Resolve,
  target: Target
): Promise<string | undefined> =>
  addressProblem(allowance, target.host, target.port, target.address) ??
  ((await isOwn(own, resolve, target))
    ? `${target.host}:${target.port} is the service's own listener or its database: never a receiver`
    : undefined)

/** The problem with the first of a name's addresses that has one. */
const addressesProblem = async (
  allowance: Allowance,
  own: ReadonlyArray<OwnListener>,
  resolve: Resolve,
  host: string,
  port: number,
  addresses: ReadonlyArray<{ readonly address: string }>
): Promise<string | undefined> => {
  for (const { address } of addresses) {
    const parsed = parseAddress(address)
    if (parsed === undefined) return `${host} resolved to an unreadable address`
    const problem = await targetProblem(allowance, own, resolve, { host, port, address: parsed })
    if (problem !== undefined) return problem
  }
  return undefined
}

/** A `lookup` for Node's client that resolves, refuses the host if any address is refused, and connects to the first. */
const checkedLookup =
  (allowance: Allowance, own: ReadonlyArray<OwnListener>, resolve: Resolve, port: number): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname)
      .then(async (addresses) => {
        const problem = await addressesProblem(allowance, own, resolve, hostname, port, addresses)
        if (problem !== undefined) return callback(new Blocked(problem), "", 4)
        const first = addresses[0]
        if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
        if (options.all === true) return callback(null, addresses.map((a) => ({ ...a })) as never)
        callback(null, first.address, first.family)
      })
      .catch((error: Error) => callback(error as NodeJS.ErrnoException, "", 4))
  }

const retryAfterSeconds = (value: string | Array<string> | undefined): number | null => {
  if (typeof value !== "string") return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

interface Policy {
  readonly allowance: Allowance
  readonly own: ReadonlyArray<OwnListener>
  readonly resolve: Resolve
}

/** Posts one request and reads the start of its answer; never rejects. */
const post = async (policy: Policy, timeout: Duration.Duration, request: OutboundRequest): Promise<SendOutcome> => {
  const { allowance, own, resolve } = policy
  const url = new URL(request.url)
  const port = portOf(url)
  const literal = parseAddress(bareHost(url))
  // A literal address never reaches `lookup`: it is judged here.
  const problem =
    urlProblem(allowance, request.url) ??
    (literal === undefined
      ? undefined
      : await targetProblem(allowance, own, resolve, { host: bareHost(url), port, address: literal }))
  if (problem !== undefined) return { kind: "blocked", message: problem, durationMs: 0 }
  return new Promise<SendOutcome>((settle) => {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const client = url.protocol === "https:" ? https : http
    const body = Buffer.from(request.body, "utf8")
    let done = false
    const finish = (outcome: SendOutcome) => {
      if (done) return
      done = true
      clearTimeout(timer)
      outgoing.destroy()
      settle(outcome)
    }
    const outgoing = client.request(url, {
      method: "POST",
      headers: { ...request.headers, "content-length": String(body.length) },
      lookup: checkedLookup(allowance, own, resolve, port),
      agent: false
    })
    const timer = setTimeout(
      () => finish({ kind: "timeout", message: `no answer within ${Duration.format(timeout)}`, durationMs: elapsed() }),
      Duration.toMillis(timeout)
    )
    outgoing.on("error", (error) =>
      finish(
        error instanceof Blocked
          ? { kind: "blocked", message: error.message, durationMs: elapsed() }
          : {
              kind: "connection_failed",
              message: `could not post to ${url.host}: ${error.message}`,
              durationMs: elapsed()
            }
      )
    )
    outgoing.on("response", (answer) => {
      const chunks: Array<Buffer> = []
      let size = 0
      const answered = () =>
        finish({
          kind: "answered",
          status: answer.statusCode ?? 0,
          retryAfterSeconds: retryAfterSeconds(answer.headers["retry-after"]),
          body: Buffer.concat(chunks).subarray(0, answerBytes).toString("utf8"),
          durationMs: elapsed()
        })
      answer.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        size += chunk.length
        if (size >= answerBytes) answered()
      })
      answer.on("end", answered)
      answer.on("error", answered)
    })
    outgoing.end(body)
  })
}

/**
 * The sender with a given allowance, the service's own listeners (none unless given) and a
 * resolver: tests pass a resolver whose answers they change.
 */
export const make = (options: {
  readonly allowance: Allowance
  readonly own?: ReadonlyArray<OwnListener> | undefined
  readonly resolve?: Resolve | undefined
  readonly timeout?: Duration.Duration
}) => {
  const policy: Policy = {
    allowance: options.allowance,
    own: options.own ?? [],
    resolve: options.resolve ?? systemResolve
  }
  const timeout = options.timeout ?? attemptTimeout
  const check = (text: string) =>
    Effect.gen(function* () {
      const problem = urlProblem(policy.allowance, text)
      if (problem !== undefined) return yield* new WebhookUrlRejected({ message: problem })
      const url = new URL(text)
      const host = bareHost(url)
      const literal = parseAddress(host)
      const addresses =
        literal !== undefined
          ? [{ address: host }]
          : yield* Effect.tryPromise(() => policy.resolve(host)).pipe(
              Effect.mapError(() => new WebhookUrlRejected({ message: `${host} does not resolve` }))
            )
      const refused = yield* Effect.promise(() =>
        addressesProblem(policy.allowance, policy.own, policy.resolve, host, portOf(url), addresses)
      )
      if (refused !== undefined) return yield* new WebhookUrlRejected({ message: refused })
    })
  const send = (request: OutboundRequest) =>
    Effect.promise(() => post(policy, timeout, request)).pipe(Effect.withSpan("WebhookSender.send"))
  return WebhookSender.of({ check, send })
}

/** The sender under `WEBHOOK_ALLOWED_HOSTS`, never reaching the listeners `own` names. */
export const layerWith = (own: ReadonlyArray<OwnListener>) =>
  Layer.effect(
    WebhookSender,
    Effect.map(allowedHosts, (allowance) => make({ allowance, own }))
  )
