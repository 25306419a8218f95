/**
 * The browser the browser tests drive: Debian's `chromium`, or the one `CHROMIUM_PATH` names.
 * Without one they fail, saying how to install it; they never skip.
 */
import { existsSync } from "node:fs"

const candidates = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome"
]

export const chromiumPath = () => {
  const found = candidates.find((path) => path !== undefined && path !== "" && existsSync(path))
  if (found === undefined) {
    throw new Error(
      `No Chromium found (looked at CHROMIUM_PATH and ${candidates.slice(1).join(", ")}): install Debian's "chromium" package (apt-get install -y chromium) or set CHROMIUM_PATH.`
    )
  }
  return found
}

/** Where screenshots and page timings are kept (git-ignored). */
export const artifacts = "test-artifacts"
