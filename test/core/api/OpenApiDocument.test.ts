/**
 * The OpenAPI document says what the service does, precisely enough for generated clients:
 * query parameters typed as the values they decode to, formats on ids, timestamps and dates, one
 * named component per resource referenced wherever it appears, and every status and header an
 * operation can get, with the one error body. `/v1/openapi.json` serves this same document
 * (test/e2e/api.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { OpenApi } from "effect/http-api"
import { Api } from "../../../core/api/Api.ts"
import { ErrorBody } from "../../../core/api/Errors.ts"
import { examples } from "../../../core/api/openapi/Examples.ts"
import { Debtor, HistoryEntry, Integration, Receivable, Vendor } from "../../../core/receivables/domain/Resources.ts"

const document = OpenApi.fromApi(Api)
const schemas = document.components.schemas as Record<string, Record<string, unknown>>
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  item.get === undefined ? [] : [{ path, operation: item.get }]
)
const operation = (path: string) => document.paths[path]!.get!
const parameter = (path: string, name: string) => operation(path).parameters.find((p) => p.name === name)!
const properties = (name: string) => schemas[name]!.properties as Record<string, Record<string, unknown>>

describe("the OpenAPI document", () => {
  it("types integer parameters as integers, with their bounds and defaults", () => {
    const integer = (path: string, name: string) => parameter(path, name).schema
    assert.deepStrictEqual(integer("/v1/receivables", "limit"), {
      type: "integer",
      minimum: 1,
      maximum: 500,
      default: 100
    })
    assert.deepStrictEqual(integer("/v1/events", "limit"), { type: "integer", minimum: 1, maximum: 500, default: 100 })
    assert.deepStrictEqual(integer("/v1/receivables", "history_limit"), {
      type: "integer",
      minimum: 0,
      maximum: 100,
      default: 10
    })
    assert.deepStrictEqual(integer("/v1/receivables/{id}", "history_limit"), {
      type: "integer",
      minimum: 0,
      maximum: 100,
      default: 10
    })
    assert.include(integer("/v1/receivables", "page"), { type: "integer", minimum: 1, default: 1 })
    assert.include(integer("/v1/events", "after"), { type: "integer", minimum: 0, default: 0 })
    assert.match(parameter("/v1/receivables", "limit").description ?? "", /1 to 500/)
  })

  it("gives every query parameter a concrete type and a description of its own", () => {
    for (const { path, operation } of operations) {
      for (const p of operation.parameters.filter((p) => p.in === "query")) {
        const schema = p.schema as Record<string, unknown>
        assert.oneOf(schema.type, ["string", "integer", "array"], `${path} ${p.name}`)
        assert.notProperty(schema, "allOf", `${path} ${p.name}`)
        assert.isString(p.description, `${path} ${p.name}`)
      }
    }
    assert.include(parameter("/v1/receivables", "vendor_id").schema, { type: "string", format: "uuid" })
    assert.include(parameter("/v1/integrations", "debtor_id").schema, { type: "string", format: "uuid" })
    assert.deepStrictEqual(parameter("/v1/receivables", "expand[]").schema, {
      type: "array",
      items: { type: "string", enum: ["history", "metadata"] }
    })
    assert.deepStrictEqual(parameter("/v1/receivables", "verified_since").schema, {
      type: "string",
      examples: ["all", "2026-11-20T00:00:00Z", "2026-11-20"]
    })
  })

  it("names each resource once, as the contract does, and refers to it wherever it appears", () => {
    assert.includeMembers(Object.keys(schemas), [
      "Receivable",
      "ReceivableList",
      "HistoryEntry",
      "Vendor",
      "VendorList",
      "Debtor",
      "DebtorList",
      "Integration",
      "IntegrationList",
      "Event",
      "EventList",
      "Error"
    ])
    assert.deepStrictEqual(
      Object.keys(schemas).filter((name) => name.endsWith("Encoded")),
      []
    )
    const items = (list: string) => (properties(list).data as { items: unknown }).items
    assert.deepStrictEqual(items("ReceivableList"), { $ref: "#/components/schemas/Receivable" })
    assert.deepStrictEqual(items("VendorList"), { $ref: "#/components/schemas/Vendor" })
    assert.deepStrictEqual(items("DebtorList"), { $ref: "#/components/schemas/Debtor" })
    assert.deepStrictEqual(items("IntegrationList"), { $ref: "#/components/schemas/Integration" })
    assert.deepStrictEqual(items("EventList"), { $ref: "#/components/schemas/Event" })
    assert.deepStrictEqual(properties("Receivable").history, {
      type: "array",
      items: { $ref: "#/components/schemas/HistoryEntry" }
    })
  })

  it("gives timestamps, dates and ids their formats", () => {
    for (const field of ["detected_at", "updated_at"]) {
      assert.include(properties("Receivable")[field], { type: "string", format: "date-time" }, field)
      assert.include(properties("EventReceivable")[field], { type: "string", format: "date-time" }, field)
    }
    assert.include(properties("ReceivableList").next_verified_since, { format: "date-time" })
    assert.include(properties("HistoryEntry").changed_at, { format: "date-time" })
    assert.include(properties("Vendor").created_at, { format: "date-time" })
    assert.include(properties("Receivable").receivable_date, { type: "string", format: "date" })
    assert.include(properties("Vendor").id, { type: "string", format: "uuid" })
    assert.include(properties("Receivable").id, { type: "string", pattern: "^rcv_[0-9a-f]{32}$" })
  })

  it("admits no number that JSON cannot carry", () => {
    assert.notMatch(JSON.stringify(document), /"(-?Infinity|NaN)"/)
  })

  it("documents every status of every operation, with its headers and the one error body", () => {
    const error = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
    for (const { path, operation } of operations) {
      const responses = operation.responses as Record<string, OpenApi.OpenApiSpecResponse>
      const expected = ["200", "304", "400", "401", "405", "429", "500", "503"]
      assert.includeMembers(Object.keys(responses), expected, path)
      for (const [status, response] of Object.entries(responses)) {
        assert.property(response.headers, "Request-Id", `${path} ${status}`)
        if (Number(status) >= 400) assert.deepStrictEqual(response.content, error, `${path} ${status}`)
      }
      for (const status of ["200", "304"]) {
        assert.includeMembers(
          Object.keys(responses[status]!.headers!),
          ["ETag", "Cache-Control", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"],
          `${path} ${status}`
        )
      }
      assert.property(responses["429"]!.headers, "Retry-After", path)
      assert.include(responses["429"]!.headers!["RateLimit-Remaining"], { required: false }, path)
      const allowed = ["get", "post", "patch", "delete"].filter((method) => method in document.paths[path]!)
      assert.deepStrictEqual(
        responses["405"]!.headers!.Allow!.schema,
        { type: "string", enum: [allowed.map((method) => method.toUpperCase()).join(", ")] },
        path
      )
      assert.notProperty(responses["401"]!.headers, "RateLimit-Limit", path)
      assert.deepStrictEqual(
        operation.parameters.filter((p) => p.in === "header").map((p) => p.name),
        ["If-None-Match"],
        path
      )
    }
    for (const path of ["/v1/receivables/{id}", "/v1/events/{id}"]) {
      assert.property(operation(path).responses, "404", path)
    }
  })

  it("documents the webhooks' writes without 304 or If-None-Match, and 403 for a key without the permission", () => {
    const writes = Object.entries(document.paths).flatMap(([path, item]) =>
      (["post", "patch", "delete"] as const).flatMap((method) =>
        item[method] === undefined ? [] : [{ path, method, operation: item[method] }]
      )
    )
    assert.lengthOf(writes, 7)
    for (const { path, method, operation: write } of writes) {
      const responses = write.responses as Record<string, OpenApi.OpenApiSpecResponse>
      assert.notProperty(responses, "304", `${method} ${path}`)
      assert.notInclude(
        write.parameters.map((p) => p.name),
        "If-None-Match",
        `${method} ${path}`
      )
      assert.property(responses, "403", `${method} ${path}`)
    }
    for (const { path, operation: read } of operations.filter(({ path }) => path.includes("webhook"))) {
      assert.property(read.responses, "403", path)
    }
  })

  it("has one error body whose code names every code the service sends", () => {
    const body = properties("Error").error as { properties: Record<string, { enum: Array<string> }> }
    assert.sameMembers(body.properties.type!.enum, [
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "rate_limit_error",
      "api_error"
    ])
    assert.sameMembers(body.properties.code!.enum, [
      "parameter_invalid",
      "parameter_unknown",
      "cursor_expired",
      "request_malformed",
      "request_timeout",
      "content_type_unsupported",
      "request_headers_too_large",
      "api_key_missing",
      "api_key_invalid",
      "api_key_revoked",
      "permission_denied",
      "resource_missing",
      "method_not_allowed",
      "rate_limited",
      "internal_error",
      "service_unavailable"
    ])
  })

  it("names the key's scheme so that the reference page's try-it sends it as a bearer token", () => {
    assert.deepStrictEqual(document.components.securitySchemes.bearer, {
      type: "http",
      scheme: "bearer",
      bearerFormat: "API key",
      description: "Your organization's API key, as `Authorization: Bearer <API_KEY>`."
    })
  })

  it("gives every operation samples that request exactly its path with the bearer key, no parameter filled in", () => {
    for (const { path, operation: op } of operations) {
      const samples = (op as { readonly "x-codeSamples"?: ReadonlyArray<{ lang: string; source: string }> })[
        "x-codeSamples"
      ]
      const shell = samples?.find((sample) => sample.lang === "shell")?.source ?? ""
      const environment: Record<string, string> = {
        PARTNER_RECEIVABLES_URL: "https://api.test",
        PARTNER_RECEIVABLES_KEY: "pr_live_key",
        RECEIVABLE_ID: "rcv_0",
        EVENT_ID: "evt_0",
        WEBHOOK_ENDPOINT_ID: "we_0",
        WEBHOOK_DELIVERY_ID: "wd_0"
      }
      const expanded = shell.replace(/\$([A-Z_]+)/g, (_, name: string) => environment[name] ?? `<unset ${name}>`)
      const target = /^curl "([^"]+)"/m.exec(expanded)?.[1]
      const id = /events/.test(path)
        ? "evt_0"
        : /webhook_endpoints/.test(path)
          ? "we_0"
          : /webhook_deliveries/.test(path)
            ? "wd_0"
            : "rcv_0"
      assert.strictEqual(target, `https://api.test${path.replace("{id}", id)}`)
      assert.include(expanded, `--header "Authorization: Bearer pr_live_key"`)
      assert.notInclude(expanded, "<unset")
      const sdk = samples?.find((sample) => sample.lang === "javascript")?.source ?? ""
      assert.include(sdk, `await client.${op.operationId}(`)
    }
  })

  it("gives each resource an example the contract reads back exactly as it is written", () => {
    const byName: Record<keyof typeof examples, Schema.Codec<unknown, unknown>> = {
      Vendor,
      Debtor,
      HistoryEntry,
      Receivable,
      Integration,
      Error: ErrorBody
    }
    for (const [name, schema] of Object.entries(byName)) {
      const example = examples[name as keyof typeof examples]
      const decoded = Schema.decodeUnknownSync(schema)(example)
      assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), example, name)
      assert.deepStrictEqual(schemas[name]!.examples, [example], name)
    }
  })

  it("says where the API is, whom to ask, and under which license", () => {
    assert.deepStrictEqual(document.servers, [{ url: "/", description: "The origin that serves this document" }])
    assert.isString((document.info as { contact?: { name?: string } }).contact?.name)
    assert.strictEqual(document.info.license?.name, "MIT")
  })
})
