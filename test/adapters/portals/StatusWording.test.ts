/**
 * A debtor's own status wording in a `file` or `http-json` integration: checked when the
 * integration is created (a status outside the six is refused, naming the field), and read back
 * as the mapping the sync applies before the default table.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as File from "../../../adapters/portals/file/FileConnector.ts"
import * as HttpJson from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import { normalizeStatus } from "../../../core/receivables/domain/Status.ts"
import { configuredStatusMapping, validateConfig } from "../../../core/receivables/ports/PortalConnector.ts"
import { configFor } from "./fixtures/http-json.ts"

const fileConfig = {
  directory: "/srv/exports",
  format: "csv",
  dateOrder: "YMD",
  columns: { documentKey: "id", amount: "amount", receivableDate: "date", status: "status" }
}
const httpJsonConfig = configFor("http://127.0.0.1:9", "page", { decimalSeparator: ".", groupsThousands: false })

describe("an integration's status wording", () => {
  for (const [name, connector, config] of [
    ["file", File.connector, fileConfig],
    ["http-json", HttpJson.connector, httpJsonConfig]
  ] as const) {
    it(`${name}: is accepted when every value is one of the six statuses, and applied before the default table`, () => {
      const withWording = { ...config, statuses: { Zorblax: "APPROVED", "Paid out": "PENDING" } }
      const accepted = validateConfig(connector, withWording)
      assert.isTrue(Result.isSuccess(accepted), JSON.stringify(accepted))
      const mapping = connector.statusMappingOf?.(withWording)
      assert.strictEqual(normalizeStatus("ZORBLAX", mapping), "APPROVED")
      // This debtor's "paid out" is its own: the default table would read it as paid.
      assert.strictEqual(normalizeStatus("paid_out", mapping), "PENDING")
      assert.strictEqual(normalizeStatus("Zorblax"), "ACKNOWLEDGED")
      assert.isUndefined(configuredStatusMapping(config))
    })

    it(`${name}: a status outside the six is refused at creation, naming the field`, () => {
      const refused = validateConfig(connector, { ...config, statuses: { Booked: "MAYBE" } })
      assert.isTrue(Result.isFailure(refused))
      if (Result.isFailure(refused)) assert.strictEqual(refused.failure.field, "statuses.Booked")
    })
  }
})
