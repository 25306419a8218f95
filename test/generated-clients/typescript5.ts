/**
 * Loaded with `node --import` before @hey-api/openapi-ts: it resolves `typescript` to this
 * workspace's TypeScript 5, whose compiler API the generator builds its output with. npm hoists
 * the generator to the root's node_modules, where `typescript` is the project's TypeScript 7,
 * which has no such API.
 */
import { registerHooks } from "node:module"

const workspace = new URL("package.json", import.meta.url).href

registerHooks({
  resolve: (specifier, context, nextResolve) =>
    specifier === "typescript" || specifier.startsWith("typescript/")
      ? nextResolve(specifier, { ...context, parentURL: workspace })
      : nextResolve(specifier, context)
})
