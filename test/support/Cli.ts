/** The operator CLI as operators run it (`node app/cli.ts ...`), against the test file's database. */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { Effect } from "effect"
import { TestDatabaseUrl } from "./TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")

export interface CliAnswer {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI with these arguments; `environment` adds variables (secrets a connector reads). */
export const runCli = (args: ReadonlyArray<string>, environment: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(TestDatabaseUrl, (url) =>
    Effect.promise(
      () =>
        new Promise<CliAnswer>((resolve) => {
          const child = spawn(process.execPath, [join(root, "app", "cli.ts"), ...args], {
            env: { ...process.env, ...environment, DATABASE_URL: url },
            stdio: ["ignore", "pipe", "pipe"]
          })
          let stdout = ""
          let stderr = ""
          child.stdout.on("data", (chunk) => {
            stdout += chunk
          })
          child.stderr.on("data", (chunk) => {
            stderr += chunk
          })
          child.on("exit", (code) => resolve({ code, stdout, stderr }))
        })
    )
  )

/** The JSON a successful `--json` command printed. */
export const jsonOf = <A>(answer: CliAnswer): A => {
  if (answer.code !== 0) throw new Error(`the CLI exited with ${answer.code}: ${answer.stderr}`)
  return JSON.parse(answer.stdout) as A
}
