/**
 * The Python verification snippet of docs/consumers.md, run as written with the system's
 * `python3` (standard library only) over deliveries a receiver got: what consumers copy is what
 * is tested.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Received } from "./Receiver.ts"
import { webhookHeaders } from "./Receiver.ts"

const consumers = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "consumers.md"), "utf8")
const section = consumers.slice(consumers.indexOf("## Webhooks"))
const snippet = /```python\n([\s\S]*?)```/.exec(section)?.[1]

if (snippet === undefined) throw new Error("docs/consumers.md has no Python snippet in its Webhooks section")

// Reads one delivery a line (the secret, the headers, the body's bytes in base64) and prints
// "ok" or the error of each.
const driver = `
import json, sys
for line in sys.stdin:
    item = json.loads(line)
    try:
        verify_webhook(item["secret"], item["headers"], base64.b64decode(item["body"]))
        print("ok")
    except Exception as error:
        print(repr(error))
`

/** What the snippet says of each delivery under `secret`: "ok", or its error. */
export const verifyWithPython = (secret: string, received: ReadonlyArray<Received>): ReadonlyArray<string> => {
  const input = received
    .map((r) =>
      JSON.stringify({
        secret,
        headers: webhookHeaders(r.headers),
        body: Buffer.from(r.body, "utf8").toString("base64")
      })
    )
    .join("\n")
  const run = spawnSync("python3", ["-c", `${snippet}\n${driver}`], { input, encoding: "utf8" })
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`)
  return run.stdout.trim().split("\n")
}
