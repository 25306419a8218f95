/**
 * A setting written as a comma-separated list (`CORS_ORIGINS`, `TRUSTED_PROXIES`): entries trimmed,
 * empty ones dropped, each checked by `entries`; unset, the empty list.
 */
import { Config, Schema, SchemaTransformation } from "effect"

export const commaList = <S extends Schema.Codec<ReadonlyArray<string>, ReadonlyArray<string>>>(
  name: string,
  entries: S
) =>
  Config.schema(
    Schema.String.pipe(
      Schema.decodeTo(
        entries,
        SchemaTransformation.transform({
          decode: (text: string): ReadonlyArray<string> =>
            text
              .split(",")
              .map((part) => part.trim())
              .filter((part) => part !== ""),
          encode: (list: ReadonlyArray<string>) => list.join(",")
        })
      )
    ),
    name
  ).pipe(Config.withDefault([] as ReadonlyArray<string>))
