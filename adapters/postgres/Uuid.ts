/** Whether a text is a UUID: what a `uuid` column can be compared with, so a lookup by anything else finds nothing rather than failing. */
import { Schema } from "effect"

export const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))
