/**
 * The app as operators run it, in a child process (`node app/main.ts [role]`, or any command such
 * as `npm start`): its output, its exit, and a wait for `/health` that fails with the output if
 * the process exits first.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

export interface AppProcess {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/**
 * `command` with `args` in the project's folder. `group`: in a process group of its own (its id
 * the child's), as a supervisor starts a service, so that the test can signal the whole group.
 */
export const spawnCommand = (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly group?: boolean } = {}
): AppProcess => {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.group ?? false
  })
  let output = ""
  child.stdout?.on("data", (chunk) => {
    output += chunk
  })
  child.stderr?.on("data", (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

export const spawnApp = (env: Record<string, string>, role?: "serve" | "worker"): AppProcess =>
  spawnCommand(process.execPath, [join(root, "app", "main.ts"), ...(role === undefined ? [] : [role])], env)

/** The body of the first 200 from `/health`; throws if the app exits or stays silent. */
export const healthy = async (base: string, app: AppProcess, timeoutMs = 30_000): Promise<unknown> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (app.child.exitCode !== null) throw new Error(`the app exited: ${app.output()}`)
    const response = await fetch(`${base}/health`).catch(() => undefined)
    if (response?.status === 200) return response.json()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no answer on /health within ${timeoutMs} ms: ${app.output()}`)
}
