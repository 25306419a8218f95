/**
 * Whether a text is a UUID: ids are `uuid` columns, so anything else names no row, and must not
 * reach the database as a cast error.
 */
import { Schema } from "effect"

export const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))
