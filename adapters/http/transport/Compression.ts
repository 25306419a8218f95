/**
 * Compressing an answer's bytes with node:zlib, on libuv's thread pool (the event loop keeps
 * serving while a page compresses), in one call: the body is complete in memory already, so the
 * compressed bytes come back whole and the answer keeps an exact `Content-Length`. An answer
 * written as it is read goes through a zlib stream instead, at the same level, its bytes
 * compressed as they come (node's stream passes the socket's back-pressure on). The levels and
 * the threshold were chosen from `bench/compression` (bench/results/2026-11-23-compression.md).
 */
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib"
import { NodeStream } from "@effect/platform-node"
import { Effect, Stream } from "effect"

export type Compressed = "br" | "gzip"

/** How hard to try: per request for API answers; once per process for the static pages. */
export interface Levels {
  readonly gzip: number
  readonly br: number
}

/**
 * API answers: the fastest level of each. On a 500-item page (267 KiB) brotli 1 is 8.3x smaller
 * for 0.7 ms of CPU, smaller and cheaper than gzip at any level up to 6; brotli 4 saves another 7%
 * of the bytes for 2.5 times the CPU, gzip 6 another 18% of gzip 1's bytes for 1.5 times.
 * The service is CPU-bound (bench/README.md), so the cheap end wins.
 */
export const dynamicLevels: Levels = { gzip: 1, br: 1 }

/** Static pages are compressed once and then served from memory: the smallest that is still quick. */
export const staticLevels: Levels = { gzip: 9, br: 9 }

/**
 * Bodies smaller than this go uncompressed: with the headers they fit one TCP segment either way,
 * so compressing (0.1 to 0.2 ms of CPU for a single receivable) saves the client no time.
 */
export const thresholdBytes = 1400

/** Media types worth compressing (text); images and the like are left as they are. */
export const isCompressible = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^(?:application\/(?:[\w.+-]*\+)?json|text\/|application\/javascript)/i.test(contentType)

/** `bytes` compressed in `coding`, off the event loop. */
export const compress = (bytes: Uint8Array, coding: Compressed, levels: Levels = dynamicLevels) =>
  Effect.callback<Uint8Array>((resume) => {
    const done = (error: Error | null, result: Uint8Array) => resume(error ? Effect.die(error) : Effect.succeed(result))
    if (coding === "gzip") gzip(bytes, { level: levels.gzip }, done)
    else
      brotliCompress(
        bytes,
        {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: levels.br,
            // Lets brotli size its window to the body instead of the 4 MiB default.
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length
          }
        },
        done
      )
  })

/** `body` compressed in `coding` as it flows, at the per-request levels. */
export const compressStream = <E, R>(body: Stream.Stream<Uint8Array, E, R>, coding: Compressed) =>
  body.pipe(
    NodeStream.pipeThroughSimple(() =>
      coding === "gzip"
        ? createGzip({ level: dynamicLevels.gzip })
        : createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: dynamicLevels.br } })
    ),
    // zlib fails only on a fault of its own: nothing the client can be told about mid-answer.
    Stream.orDie
  )
