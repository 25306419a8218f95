/**
 * The document's schemas as client generators need them: one named component per resource,
 * referenced wherever the resource appears, under the contract's names, and no schema a
 * generator reads as `unknown`.
 */
import { Equal } from "effect"
import type { OpenApi } from "effect/http-api"
import { componentRef, isJsonObject, reachableComponents, renameReferences, rewrite } from "./Json.ts"

type Document = OpenApi.OpenAPISpec

const withSchemas = (document: Document, schemas: OpenApi.OpenAPIComponents["schemas"]): Document => ({
  ...document,
  components: { ...document.components, schemas }
})

const annotationKeywords = new Set([
  "title",
  "description",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly"
])

const annotatesOnly = (member: unknown) =>
  isJsonObject(member) && Object.keys(member).every((keyword) => annotationKeywords.has(keyword))

/**
 * Effect writes a field's own annotations as an `allOf` member (`{type: "string", allOf:
 * [{description}]}`), which generators read as `unknown`. Such members constrain nothing, so
 * they move onto the schema itself; the field's description is the more specific one and wins.
 */
export const liftAnnotations = (value: unknown): unknown =>
  rewrite(value, (object) => {
    const members = object.allOf
    if (!Array.isArray(members) || !members.some(annotatesOnly)) return object
    const { allOf: _, ...schema } = object
    const constraints = members.filter((member) => !annotatesOnly(member))
    return Object.assign(schema, ...members.filter(annotatesOnly), constraints.length > 0 ? { allOf: constraints } : {})
  })

/**
 * Effect names a schema whose identifier sits on its decoded side `<identifier>Encoded`; the
 * document only ever shows the wire form, so the suffix says nothing to its readers. A schema
 * listed by its identifier (`HttpApi.AdditionalSchemas`) is written as an alias, `<identifier>`
 * referring to `<identifier>Encoded`: the alias then gives way to the schema it names.
 */
export const dropEncodedSuffixes = (document: Document): Document => {
  const schemas = document.components.schemas
  const rename = (name: string) => {
    const base = name.replace(/Encoded$/, "")
    const taken = Object.hasOwn(schemas, base) && !Equal.equals(schemas[base], componentRef(name))
    return base === name || taken ? name : base
  }
  const renamed = renameReferences(document, rename) as Document
  const aliases = new Set(Object.keys(schemas).flatMap((name) => (rename(name) === name ? [] : [rename(name)])))
  return withSchemas(
    renamed,
    Object.fromEntries(
      Object.entries(renamed.components.schemas).flatMap(([name, schema]) =>
        rename(name) === name && aliases.has(name) ? [] : [[rename(name), schema]]
      )
    )
  )
}

// Cheap to compute and different for nearly every pair of unequal schemas: only objects of the
// same outline are compared in full, which keeps the search to milliseconds.
const outlineOf = (schema: unknown) =>
  isJsonObject(schema)
    ? `${Object.keys(schema)}|${isJsonObject(schema.properties) ? Object.keys(schema.properties) : ""}`
    : ""

/**
 * Effect writes a named schema out again where it is nested in one whose wire names differ from
 * its field names (a list's items, a receivable's history), and a generator then makes a type of
 * each copy. Every exact copy of a component becomes a reference to it.
 */
export const referenceCopies = (document: Document): Document =>
  Object.keys(document.components.schemas).reduce((current, name) => {
    const component = current.components.schemas[name]!
    const outline = outlineOf(component)
    const referenced = rewrite(current, (object) =>
      outlineOf(object) === outline && Equal.equals(object, component) ? componentRef(name) : object
    ) as Document
    // The component itself is no copy: it keeps its body, whose members hold no copy of it.
    return withSchemas(referenced, { ...referenced.components.schemas, [name]: component })
  }, document)

/** Only the component schemas that the operations reach, directly or through other components. */
export const pruneComponents = (document: Document): Document => {
  const schemas = document.components.schemas
  const reached = reachableComponents(schemas, withSchemas(document, {}))
  return withSchemas(document, Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))))
}
