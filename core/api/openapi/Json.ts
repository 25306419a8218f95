/**
 * The OpenAPI document as plain JSON, for the steps that refine it: rebuilding it bottom-up, and
 * the component references in it.
 */

export type JsonObject = { readonly [key: string]: unknown }

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `value` rebuilt bottom-up: every object is given to `f` once its members are rebuilt, and
 * replaced by what `f` returns. Nothing is changed in place; what `f` leaves alone is shared, not
 * copied, so a pass that changes little costs little.
 */
export const rewrite = (value: unknown, f: (object: JsonObject) => unknown): unknown => {
  if (Array.isArray(value)) {
    const items = value.map((item) => rewrite(item, f))
    return items.some((item, index) => item !== value[index]) ? items : value
  }
  if (!isJsonObject(value)) return value
  const entries = Object.entries(value).map(([key, member]) => [key, rewrite(member, f)] as const)
  const changed = entries.some(([key, member]) => member !== value[key])
  return f(changed ? Object.fromEntries(entries) : value)
}

const componentPrefix = "#/components/schemas/"

export const componentRef = (name: string) => ({ $ref: `${componentPrefix}${name}` })

/** The names of the component schemas that `value` refers to, each once. */
export const referencedComponents = (value: unknown): ReadonlySet<string> => {
  const names = new Set<string>()
  rewrite(value, (object) => {
    if (typeof object.$ref === "string" && object.$ref.startsWith(componentPrefix)) {
      names.add(object.$ref.slice(componentPrefix.length))
    }
    return object
  })
  return names
}

/** The component schemas `value` refers to, directly or through other components of `schemas`. */
export const reachableComponents = (schemas: JsonObject, value: unknown): ReadonlySet<string> => {
  const reached = new Set<string>()
  const pending = [...referencedComponents(value)]
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name)) continue
    reached.add(name)
    pending.push(...referencedComponents(schemas[name]))
  }
  return reached
}

/** `value` with its references to component schemas renamed by `rename`. */
export const renameReferences = (value: unknown, rename: (name: string) => string): unknown =>
  rewrite(value, (object) =>
    typeof object.$ref === "string" && object.$ref.startsWith(componentPrefix)
      ? { ...object, $ref: `${componentPrefix}${rename(object.$ref.slice(componentPrefix.length))}` }
      : object
  )
