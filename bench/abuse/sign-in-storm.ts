/**
 * A sign-in storm against the dashboard beside another tenant's API use, over loopback
 * (`npm run bench:sign-in-storm`): a fresh embedded PostgreSQL, one organization's API key and
 * data, a dashboard user of another organization; then the app in its `serve` role, once per cap
 * of password hashes in flight (1, the shipped 2, and 64, out of reach, as before the cap), measured
 * in two phases of the same run: quiet, then a storm of sign-ins (half with the right password,
 * half wrong ones on made-up accounts) from many client addresses in 127.0.0.0/8 (`localAddress`),
 * each under its own limits, at a steady rate. Throughout, one client asks the API for the
 * tenant's vendor list and a 500-item page, one request at a time; and during the storms a real
 * user of the dashboard tenant, who signed in from their own address before, signs in again now
 * and then (BENCH_USER_SIGN_INS in all, spread over the stormy phases). Prints the API's p50/p99
 * per phase, the server's CPU (cores busy) and largest RSS, how the storm's sign-ins were answered
 * and how many of the real user's succeeded.
 *
 * Options (environment): BENCH_SIGN_INS_PER_SECOND (default 20), BENCH_SOURCES (250 addresses),
 * BENCH_PHASE_SECONDS (10) and BENCH_ROUNDS (3) of a quiet and a stormy phase each, in turn,
 * BENCH_USER_SIGN_INS (21: 7 a stormy phase); BENCH_SMOKE=1 for a run of seconds.
 */
import { readFileSync } from "node:fs"
import http from "node:http"
import { Duration, Effect, Exit, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { freePort } from "../../test/support/ports.ts"
import { processCpuSeconds } from "../ProcessCpu.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { invitePathFor, quantile, seedOrganization, startServer, timedRequest } from "../support/OneOrganization.ts"
import { option, sized, smoke } from "../support/Smoke.ts"

const signInsPerSecond = option("BENCH_SIGN_INS_PER_SECOND", 20, 10)
const sources = option("BENCH_SOURCES", 250, 4)
const phaseSeconds = option("BENCH_PHASE_SECONDS", 10, 1)
// Quiet and storm phases alternate, so that the machine's drift (it is shared) touches both alike.
const rounds = option("BENCH_ROUNDS", 3, 1)
const userSignInsPerPhase = Math.max(1, Math.round(option("BENCH_USER_SIGN_INS", 21, 2) / rounds))
const receivables = sized(10_000, 500)
// The shipped cap, one lower, and one out of reach, which is how hashing ran before there was a cap.
const caps = sized([1, 2, 64], [2])
const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(11))
const email = "storm@example.com"
const password = "a bench password, long enough"
// The real user: an account of the dashboard tenant that the storm never names, from an address of
// its own per cap, so that their own attempts stay under an address's allowance (60 per 15 minutes).
const userEmail = "person@example.com"
const userAddressFor = (cap: number) => `127.255.${cap}.1`

/** The storm's `n`-th address: 127.0.0.2 to 127.0.0.251, then on in 127.0.1.0/24 and so on. */
const sourceAddress = (n: number) => `127.0.${Math.floor(n / 250)}.${2 + (n % 250)}`
const log = (line: string) => process.stderr.write(`${line}\n`)

const sameOrigin = (port: number) => ({ origin: `http://127.0.0.1:${port}`, "sec-fetch-site": "same-origin" })

/** One sign-in from `localAddress`, on a connection of its own as a distinct client's would be. */
const signIn = (port: number, localAddress: string, fields: Record<string, string>) =>
  new Promise<number>((resolve) => {
    const body = new URLSearchParams(fields).toString()
    const sent = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress,
        agent: false,
        method: "POST",
        path: "/dashboard/sign-in",
        headers: { ...sameOrigin(port), "content-type": "application/x-www-form-urlencoded" }
      },
      (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode ?? 0))
      }
    )
    sent.on("error", () => resolve(0))
    sent.end(body)
  })

/** Largest resident set of the process seen while `during` runs, sampled every 100 ms (Linux). */
const largestRss = async <A>(pid: number, during: Promise<A>) => {
  let largest = 0
  const sample = () => {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/)
    largest = Math.max(largest, Number(line?.[1] ?? 0) * 1024)
  }
  sample()
  const timer = setInterval(sample, 100)
  const result = await during.finally(() => clearInterval(timer))
  return { result, largest }
}

const pagePath = "/v1/receivables?verified_since=all&limit=500"

/** The tenant's two requests in turn, one at a time, until `until` (performance.now()). */
const measureApi = async (port: number, until: number) => {
  const times = { vendors: [] as Array<number>, page: [] as Array<number> }
  const headers = { authorization: `Bearer ${key}` }
  while (performance.now() < until) {
    const vendors = await timedRequest(port, "/v1/vendors", { headers })
    const page = await timedRequest(port, pagePath, { headers })
    if (vendors.status !== 200 || page.status !== 200) throw new Error(`API: ${vendors.status}, ${page.status}`)
    times.vendors.push(vendors.ms)
    times.page.push(page.ms)
  }
  return times
}

/** Sign-ins at `signInsPerSecond` in all, from `sources` addresses in turn, until `until`. */
const storm = async (port: number, until: number) => {
  const answers = new Map<number, number>()
  const pending: Array<Promise<void>> = []
  const every = 1000 / signInsPerSecond
  for (let n = 0; performance.now() < until; n++) {
    const localAddress = sourceAddress(n % sources)
    // Half with the right password, half wrong ones on made-up accounts: both cost a hash.
    const fields = n % 2 === 0 ? { email, password } : { email: `made-up-${n}@example.com`, password: "not it at all" }
    pending.push(
      signIn(port, localAddress, fields).then((status) => {
        answers.set(status, (answers.get(status) ?? 0) + 1)
      })
    )
    await new Promise((resolve) => setTimeout(resolve, every))
  }
  await Promise.all(pending)
  return answers
}

/** The real user's sign-ins, `userSignInsPerPhase` evenly spread until `until`: the statuses. */
const realUser = async (port: number, userAddress: string, until: number) => {
  const statuses: Array<number> = []
  const every = (until - performance.now()) / userSignInsPerPhase
  for (let i = 0; i < userSignInsPerPhase; i++) {
    await new Promise((resolve) => setTimeout(resolve, i === 0 ? every / 2 : every))
    statuses.push(await signIn(port, userAddress, { email: userEmail, password }))
  }
  return statuses
}

interface Measured {
  readonly times: { readonly vendors: ReadonlyArray<number>; readonly page: ReadonlyArray<number> }
  readonly answers: ReadonlyMap<number, number>
  /** The real user's sign-ins: 303 is signed in. */
  readonly user: ReadonlyArray<number>
  readonly largest: number
  readonly cores: number
}

const phase = async (pid: number, port: number, userAddress: string, stormy: boolean): Promise<Measured> => {
  const until = performance.now() + phaseSeconds * 1000
  const cpuBefore = processCpuSeconds(pid)
  const started = performance.now()
  const { result, largest } = await largestRss(
    pid,
    Promise.all([
      measureApi(port, until),
      stormy ? storm(port, until) : Promise.resolve(new Map<number, number>()),
      stormy ? realUser(port, userAddress, until) : Promise.resolve([])
    ])
  )
  const cores = (processCpuSeconds(pid) - cpuBefore) / ((performance.now() - started) / 1000)
  return { times: result[0], answers: result[1], user: result[2], largest, cores }
}

const main = withFreshDatabase("sign-in-storm", (url) =>
  Effect.gen(function* () {
    yield* seedOrganization({ name: "API tenant", receivables, key })
    const sql = yield* SqlClient.SqlClient
    const [other] = yield* sql<{
      id: string
    }>`INSERT INTO organizations (name) VALUES ('Dashboard tenant') RETURNING id`
    const invitePath = yield* Effect.promise(() => invitePathFor(url, other!.id, email))
    const userInvitePath = yield* Effect.promise(() => invitePathFor(url, other!.id, userEmail))

    console.log(
      `| hashes in flight | phase | vendors p50 ms | vendors p99 ms | 500-item page p50 ms | page p99 ms | server CPU (cores) | server RSS MiB | sign-ins answered | real user signed in |`
    )
    console.log("|---:|---|---:|---:|---:|---:|---:|---:|---|---|")
    for (const cap of caps) {
      const port = yield* Effect.promise(freePort)
      const scope = yield* Scope.make()
      const app = yield* Effect.acquireRelease(
        Effect.promise(() => startServer(url, port, { DASHBOARD: "on", PASSWORD_HASHES_IN_FLIGHT: String(cap) })),
        (child) => Effect.sync(() => child.kill("SIGTERM"))
      ).pipe(Scope.provide(scope))
      if (cap === caps[0]) {
        // Answered 503 while the decoy hash made at start holds the only place: tried again, as a person would.
        for (const path of [invitePath, userInvitePath]) {
          const accept = () =>
            timedRequest(port, path, {
              method: "POST",
              headers: { ...sameOrigin(port), "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ password, repeat: password }).toString()
            })
          let accepted = yield* Effect.promise(accept)
          for (let tries = 0; accepted.status === 503 && tries < 50; tries++) {
            yield* Effect.sleep(Duration.seconds(Number(accepted.headers["retry-after"] ?? 1)))
            accepted = yield* Effect.promise(accept)
          }
          if (accepted.status !== 303) throw new Error(`the invite was not accepted: ${accepted.status}`)
        }
      }
      // The real user has signed in from their address before the storms, as a person has.
      const userAddress = userAddressFor(cap)
      let first = yield* Effect.promise(() => signIn(port, userAddress, { email: userEmail, password }))
      // As the invites: a 503 while the decoy hash holds the place is tried again a second later.
      for (let tries = 0; first === 503 && tries < 50; tries++) {
        yield* Effect.sleep(Duration.seconds(1))
        first = yield* Effect.promise(() => signIn(port, userAddress, { email: userEmail, password }))
      }
      if (first !== 303) throw new Error(`the real user's first sign-in: ${first}`)
      // Warm-up: the first requests compile the handlers and fill the pools.
      yield* Effect.promise(() => measureApi(port, performance.now() + (smoke ? 200 : 2000)))
      const page = yield* Effect.promise(() =>
        timedRequest(port, pagePath, { headers: { authorization: `Bearer ${key}` } })
      )
      const items = (JSON.parse(page.body) as { data: ReadonlyArray<unknown> }).data.length
      if (items !== Math.min(500, receivables)) throw new Error(`the page has ${items} items`)
      const phases = { quiet: [] as Array<Measured>, storm: [] as Array<Measured> }
      for (let round = 0; round < rounds; round++) {
        phases.quiet.push(yield* Effect.promise(() => phase(app.pid!, port, userAddress, false)))
        phases.storm.push(yield* Effect.promise(() => phase(app.pid!, port, userAddress, true)))
      }
      for (const [name, measured] of Object.entries(phases)) {
        const vendors = measured.flatMap((each) => each.times.vendors)
        const pages = measured.flatMap((each) => each.times.page)
        const answers = new Map<number, number>()
        for (const each of measured)
          for (const [status, n] of each.answers) answers.set(status, (answers.get(status) ?? 0) + n)
        const listed = [...answers].sort(([a], [b]) => a - b).map(([status, n]) => `${n}× ${status}`)
        const user = measured.flatMap((each) => each.user)
        const userCell =
          user.length === 0
            ? "-"
            : `${user.filter((status) => status === 303).length} of ${user.length}${
                user.some((status) => status !== 303) ? ` (${user.filter((status) => status !== 303).join(", ")})` : ""
              }`
        const cores = measured.reduce((sum, each) => sum + each.cores, 0) / measured.length
        const largest = Math.max(...measured.map((each) => each.largest))
        console.log(
          `| ${cap} | ${name === "storm" ? `storm, ${signInsPerSecond}/s from ${sources} addresses` : "quiet"} | ${[
            quantile(vendors, 0.5),
            quantile(vendors, 0.99),
            quantile(pages, 0.5),
            quantile(pages, 0.99),
            cores
          ]
            .map((value) => value.toFixed(1))
            .join(" | ")} | ${(largest / 2 ** 20).toFixed(0)} | ${listed.join(", ") || "none"} | ${userCell} |`
        )
        log(`cap ${cap}, ${name}: ${vendors.length} rounds of API requests`)
      }
      yield* Scope.close(scope, Exit.void)
    }
  })
)

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
