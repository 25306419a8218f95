/**
 * `WebhookSender` over Node's `http`/`https`: a delivery is posted with the outbound policy
 * applied at connect time, to every address the host resolves to (the connection goes to the
 * address checked, so DNS cannot change between the check and the connect); redirects are not
 * followed (Node's client never does); only the first `answerBytes` of an answer are read; no
 * answer in 15 s is a timeout. Settings: `WEBHOOK_ALLOWED_HOSTS` (names and CIDRs allowed beside
 * public addresses, `http` included; empty by default).
 */
import { lookup as systemLookup } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import { attemptTimeout } from "../../core/domain/WebhookSchedule.ts"
import { WebhookUrlRejected } from "../../core/domain/Webhooks.ts"
import { type OutboundRequest, type SendOutcome, WebhookSender } from "../../core/ports/WebhookSender.ts"
import { type Allowance, addressProblem, bareHost, parseAddress, parseAllowance, urlProblem } from "./OutboundPolicy.ts"

/** `WEBHOOK_ALLOWED_HOSTS`: host names and CIDRs, separated by commas; empty by default. */
export const allowedHosts = Config.schema(
  Schema.String.check(
    Schema.makeFilter((text) => typeof parseAllowance(text) !== "string", {
      expected: "host names or CIDR blocks separated by commas, e.g. hooks.internal,10.1.0.0/16"
    })
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

/** A `lookup` for Node's client that resolves, refuses the host if any address is refused, and connects to the first. */
const checkedLookup =
  (allowance: Allowance, resolve: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const parsed = parseAddress(address)
          const problem =
            parsed === undefined ? `${hostname} resolved to ${address}` : addressProblem(allowance, hostname, parsed)
          if (problem !== undefined) return callback(new Blocked(problem), "", 4)
        }
        const first = addresses[0]
        if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
        if (options.all === true) return callback(null, addresses.map((a) => ({ ...a })) as never)
        callback(null, first.address, first.family)
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 4)
    )
  }

const retryAfterSeconds = (value: string | Array<string> | undefined): number | null => {
  if (typeof value !== "string") return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

/** Posts one request and reads the start of its answer; never rejects. */
const post = (allowance: Allowance, resolve: Resolve, timeout: Duration.Duration, request: OutboundRequest) =>
  new Promise<SendOutcome>((settle) => {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const url = new URL(request.url)
    const problem = urlProblem(allowance, request.url)
    if (problem !== undefined) return settle({ kind: "blocked", message: problem, durationMs: 0 })
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
      // A literal address never reaches `lookup`: `urlProblem` judged it above.
      lookup: checkedLookup(allowance, resolve),
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

/** The sender with a given allowance and resolver: tests pass a resolver whose answers they change. */
export const make = (options: {
  readonly allowance: Allowance
  readonly resolve?: Resolve | undefined
  readonly timeout?: Duration.Duration
}) => {
  const resolve = options.resolve ?? systemResolve
  const timeout = options.timeout ?? attemptTimeout
  const check = (text: string) =>
    Effect.gen(function* () {
      const problem = urlProblem(options.allowance, text)
      if (problem !== undefined) return yield* new WebhookUrlRejected({ message: problem })
      const host = bareHost(new URL(text))
      if (parseAddress(host) !== undefined) return
      const addresses = yield* Effect.tryPromise(() => resolve(host)).pipe(
        Effect.mapError(() => new WebhookUrlRejected({ message: `${host} does not resolve` }))
      )
      for (const { address } of addresses) {
        const parsed = parseAddress(address)
        const refused = parsed === undefined ? "an unreadable address" : addressProblem(options.allowance, host, parsed)
        if (refused !== undefined) return yield* new WebhookUrlRejected({ message: refused })
      }
    })
  const send = (request: OutboundRequest) =>
    Effect.promise(() => post(options.allowance, resolve, timeout, request)).pipe(Effect.withSpan("WebhookSender.send"))
  return WebhookSender.of({ check, send })
}

export const layer = Layer.effect(
  WebhookSender,
  Effect.map(allowedHosts, (allowance) => make({ allowance }))
)
