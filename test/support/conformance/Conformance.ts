/**
 * The connector conformance kit: the checks every portal connector must pass, run against a
 * fixture of its portal (a directory of exports, a mock server) that the kit fills with
 * documents of its choosing. The fixture says how its portal writes things; the kit decides what
 * the portal holds and compares what the connector makes of it with the truth.
 *
 * Framework-neutral: `conformanceChecks` gives named effects; `describeConformance` in
 * `./vitest.ts` turns them into one test each. See docs/connectors.md.
 */

import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Data, DateTime, Effect, Result, type Scope, Stream } from "effect"
import { resolverOf } from "../../../adapters/secrets/EnvironmentSecrets.ts"
import { type FetchedDocument, validateDocument } from "../../../core/receivables/domain/PairSync.ts"
import { addDays, type DecimalSeparator } from "../../../core/receivables/domain/PortalValues.ts"
import { normalizeStatus, type Status } from "../../../core/receivables/domain/Status.ts"
import {
  type PairToFetch,
  type PortalConnector,
  secretReader,
  validateConfig
} from "../../../core/receivables/ports/PortalConnector.ts"
import type { DebtorId, OrgId, PairId, VendorId } from "../../../core/shared/domain/Ids.ts"

/** A document the kit puts in a fixture portal: the truth the connector's output is held to. */
export interface SampleDocument {
  /** The portal's id of the document: digits only, so that every portal can carry it. */
  readonly key: string
  readonly vendorReceivableId: string
  readonly amountCents: number
  /** The amount as the portal writes it, in the notation the portal was asked for. */
  readonly amountText: string
  readonly currency: string
  readonly receivableDate: string
  readonly dueDate: string | null
  /** One of the fixture's status texts. */
  readonly portalStatus: string
  readonly poNumber: string | null
}

/** What a portal holds: generated on demand, so a fixture can serve 100,000 without keeping them. */
export interface SampleDocuments {
  readonly count: number
  readonly at: (index: number) => SampleDocument
}

/** How a portal writes amounts: its decimal separator, and whether it groups thousands (`1,234.56`). */
export interface AmountNotation {
  readonly decimalSeparator: DecimalSeparator
  readonly groupsThousands: boolean
}

export interface FailureScenario {
  readonly name: string
  readonly retryable: boolean
  /** The `Retry-After` the portal gives, which the failure must carry. */
  readonly retryAfterSeconds?: number
  /** A portal failing this way, and the configuration that reaches it. */
  readonly portal: Effect.Effect<unknown, unknown, Scope.Scope>
}

export interface ConformanceFixture {
  readonly connector: PortalConnector
  /** Every status text this portal shows, with the status it must become. */
  readonly statuses: ReadonlyArray<readonly [text: string, status: Status]>
  /** The amount notations this portal may use (as its configuration says); each is checked. */
  readonly amountNotations: ReadonlyArray<AmountNotation>
  /** A portal holding exactly these documents, written as this portal writes them; gives the configuration. */
  readonly portal: (
    documents: SampleDocuments,
    notation: AmountNotation
  ) => Effect.Effect<unknown, unknown, Scope.Scope>
  /** Configurations that must be refused, each with the field the refusal must name (a dotted path). */
  readonly invalidConfigs: ReadonlyArray<{ readonly config: unknown; readonly field: string }>
  readonly failures: ReadonlyArray<FailureScenario>
  /**
   * Whether the portal knows an invoice only by the vendor's invoice number (cXML does): then the
   * kit's documents use their key as the invoice number too.
   */
  readonly invoiceNumberIsKey?: boolean
  /** The environment the fixture's secret references resolve against; no value may appear in an error. */
  readonly secrets?: Readonly<Record<string, string>>
}

export class ConformanceFailure extends Data.TaggedError("ConformanceFailure")<{ readonly message: string }> {}

export interface ConformanceCheck {
  readonly name: string
  /** Succeeds with a note worth reporting (a measurement), or fails saying what is wrong. */
  readonly run: Effect.Effect<string | undefined, ConformanceFailure, Scope.Scope>
}

/**
 * How many documents the streaming check pushes through, and what they may retain: the heap may
 * grow by at most `retainedBytesPerDocument` a document once past the first fifth (room for the
 * keys a connector remembers to refuse repeats, a few tens of bytes each; a document kept costs
 * about 400), and by at most `streamingHeapBoundMiB` in all. The same bound over 100,000 documents
 * of every bundled connector is `bench/connectors`.
 */
export const streamedDocuments = 10_000
export const retainedBytesPerDocument = 256
export const streamingHeapBoundMiB = 24

const expectThat = (condition: boolean, message: () => string) =>
  condition ? Effect.void : Effect.fail(new ConformanceFailure({ message: message() }))

const failWith = (message: string) => new ConformanceFailure({ message })

// Amounts where a float would go wrong (0.29 * 100, 4.35 * 100, 1.005), thousands, round figures.
const trickyCents = [123456, 123450, 29, 435, 100500, 100, 1, 99_999_999_99, 1_000_000_00, 57, 110, 1_234_567_89]
const currencies = ["USD", "EUR", "GBP", "CHF"]
const dates = ["2024-02-29", "2026-12-31", "2026-01-05", "2025-07-14", "2026-11-09"]

/** An amount written in a notation, in one of the forms portals use: `1,234.56`, `1234.5`, `1.234,56`, `1234`. */
export const writeAmount = (cents: number, notation: AmountNotation, form: number): string => {
  const units = Math.floor(cents / 100)
  const fraction = String(cents % 100).padStart(2, "0")
  const grouping = notation.decimalSeparator === "." ? "," : "."
  const integral =
    notation.groupsThousands && form % 2 === 0
      ? String(units).replace(/\B(?=(\d{3})+(?!\d))/g, grouping)
      : String(units)
  if (fraction === "00" && form % 5 === 0) return integral
  const decimals = fraction.endsWith("0") && form % 3 === 0 ? fraction.slice(0, 1) : fraction
  return `${integral}${notation.decimalSeparator}${decimals}`
}

// Documents' dates repeat (700 invoice dates, three terms): computed once each, as 100,000 documents need them.
const knownDates = new Map<string, string>()
const daysAfter = (isoDate: string, days: number) => {
  const key = `${isoDate}+${days}`
  const known = knownDates.get(key)
  if (known !== undefined) return known
  const date = addDays(isoDate, days)
  knownDates.set(key, date)
  return date
}

/** The kit's documents: every status of the fixture, tricky amounts, leap days, missing optional fields. */
export const sampleDocuments = (
  count: number,
  statuses: ReadonlyArray<readonly [string, Status]>,
  notation: AmountNotation,
  invoiceNumberIsKey = false
): SampleDocuments => ({
  count,
  at: (i) => {
    const cents = i < trickyCents.length ? trickyCents[i]! : ((i * 7919) % 9_999_999) + 1
    const receivableDate = i < dates.length ? dates[i]! : daysAfter("2025-01-01", i % 700)
    return {
      key: String(100_000 + i),
      vendorReceivableId: invoiceNumberIsKey ? String(100_000 + i) : `INV-${2026_000 + i}`,
      amountCents: cents,
      amountText: writeAmount(cents, notation, i),
      currency: currencies[i % currencies.length]!,
      receivableDate,
      dueDate: i % 4 === 3 ? null : daysAfter(receivableDate, 30 + (i % 3) * 15),
      portalStatus: statuses[i % statuses.length]![0],
      poNumber: i % 3 === 0 ? null : `PO-${4500 + i}`
    }
  }
})

/** A fresh directory for a fixture portal's files, removed with the scope. */
export const temporaryDirectory = (prefix: string) =>
  Effect.acquireRelease(
    Effect.promise(() => mkdtemp(join(tmpdir(), `${prefix}-`))),
    (directory) => Effect.promise(() => rm(directory, { recursive: true, force: true }))
  )

/** A pair to fetch with this configuration, its secrets read from the given environment. */
export const pairToFetch = (config: unknown, secrets: Readonly<Record<string, string>> = {}): PairToFetch => ({
  integrationId: "00000000-0000-4000-8000-00000000c0f1" as PairId,
  orgId: "00000000-0000-4000-8000-00000000c0f2" as OrgId,
  vendorId: "00000000-0000-4000-8000-00000000c0f3" as VendorId,
  debtorId: "00000000-0000-4000-8000-00000000c0f4" as DebtorId,
  config,
  now: DateTime.makeUnsafe("2026-11-21T12:00:00Z"),
  secret: secretReader(resolverOf(secrets))
})

const fetchAll = (fixture: ConformanceFixture, config: unknown, secrets = fixture.secrets ?? {}) =>
  Stream.runCollect(fixture.connector.fetch(pairToFetch(config, secrets)))

const openPortal = <A>(portal: Effect.Effect<A, unknown, Scope.Scope>) =>
  Effect.mapError(portal, (error) => failWith(`the fixture portal could not be set up: ${String(error)}`))

const fetchOrFail = (fixture: ConformanceFixture, config: unknown) =>
  fetchAll(fixture, config).pipe(
    Effect.mapError((failure) => failWith(`the fetch failed: ${failure.message} (retryable: ${failure.retryable})`))
  )

const fields = [
  "vendorReceivableId",
  "amountCents",
  "currency",
  "receivableDate",
  "dueDate",
  "portalStatus",
  "poNumber"
] as const

/** Compares fetched documents with what the portal holds, by key; the first difference is the failure. */
const compareWith = (
  expected: SampleDocuments,
  fetched: ReadonlyArray<FetchedDocument>,
  only?: ReadonlyArray<(typeof fields)[number]>
) =>
  Effect.gen(function* () {
    yield* expectThat(
      fetched.length === expected.count,
      () => `${fetched.length} documents fetched, the portal holds ${expected.count}`
    )
    const byKey = new Map(fetched.map((document) => [document.documentKey, document]))
    yield* expectThat(byKey.size === fetched.length, () => "a document key appears more than once in one fetch")
    for (let i = 0; i < expected.count; i++) {
      const truth = expected.at(i)
      const document = byKey.get(truth.key)
      if (document === undefined) return yield* failWith(`document ${truth.key} is missing from the fetch`)
      for (const field of only ?? fields) {
        const got = document[field]
        const want = truth[field]
        yield* expectThat(
          got === want,
          () =>
            `document ${truth.key}: ${field} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}` +
            (field === "amountCents" ? ` (the portal wrote "${truth.amountText}")` : "")
        )
      }
      yield* expectThat(
        Object.entries(document.metadata).every(([name, value]) => name !== "" && typeof value === "string"),
        () => `document ${truth.key}: metadata must map non-empty names to strings`
      )
    }
  })

// Forcing collections makes retained memory measurable without depending on when the GC runs.
export const collectGarbage = (): (() => void) => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

const defaultNotation = (fixture: ConformanceFixture): AmountNotation =>
  fixture.amountNotations[0] ?? { decimalSeparator: ".", groupsThousands: false }

export interface StreamingMeasurement {
  readonly documents: number
  /** Whether each document came exactly once (by the sum of their keys, so none is kept to tell). */
  readonly eachOnce: boolean
  /** The largest growth of the retained heap over its level before the fetch. */
  readonly peakMiB: number
  /** The retained heap's growth a document from the first fifth of the stream to its end. */
  readonly bytesPerDocument: number
  readonly seconds: number
  /** The process's resident memory when the fetch started, for a peak RSS to be read against. */
  readonly rssBeforeMiB: number
}

/**
 * Streams `count` documents (a multiple of 10) from the fixture's portal and measures the heap the
 * fetch retains, after a forced collection at every tenth of the stream.
 */
export const measureStreaming = (fixture: ConformanceFixture, count: number) =>
  Effect.gen(function* () {
    const documents = sampleDocuments(count, fixture.statuses, defaultNotation(fixture), fixture.invoiceNumberIsKey)
    const config = yield* openPortal(fixture.portal(documents, defaultNotation(fixture)))
    const gc = collectGarbage()
    const step = count / 10
    gc()
    const { heapUsed: baseline, rss: rssBefore } = process.memoryUsage()
    const retained: Array<number> = []
    let streamed = 0
    let keySum = 0
    const started = performance.now()
    yield* fixture.connector.fetch(pairToFetch(config, fixture.secrets ?? {})).pipe(
      Stream.runForEach((document) =>
        Effect.sync(() => {
          streamed++
          keySum += Number(document.documentKey)
          if (streamed % step === 0) {
            gc()
            retained.push(process.memoryUsage().heapUsed - baseline)
          }
        })
      ),
      Effect.mapError((failure) => failWith(`the fetch failed: ${failure.message}`))
    )
    const seconds = (performance.now() - started) / 1000
    // Keys are 100000..(100000 + count - 1): their sum proves each came once, without keeping them.
    const expectedSum = count * 100_000 + (count * (count - 1)) / 2
    // The first fifth warms caches and compiled code; what grows after it grows with the documents.
    const afterWarmUp = retained[1] ?? 0
    const atEnd = retained.at(-1) ?? 0
    return {
      documents: streamed,
      eachOnce: streamed === count && keySum === expectedSum,
      peakMiB: Math.max(0, ...retained) / 2 ** 20,
      bytesPerDocument: (atEnd - afterWarmUp) / (count - 2 * step),
      seconds,
      rssBeforeMiB: rssBefore / 2 ** 20
    } satisfies StreamingMeasurement
  })

export const conformanceChecks = (fixture: ConformanceFixture): ReadonlyArray<ConformanceCheck> => {
  const notation = defaultNotation(fixture)
  const samples = (count: number, each: AmountNotation = notation) =>
    sampleDocuments(count, fixture.statuses, each, fixture.invoiceNumberIsKey)
  const secretValues = Object.values(fixture.secrets ?? {})
  const leaksSecret = (message: string) => secretValues.some((value) => value !== "" && message.includes(value))
  return [
    {
      name: "refuses each invalid configuration, naming the field",
      run: Effect.gen(function* () {
        yield* expectThat(fixture.invalidConfigs.length > 0, () => "the fixture gives no invalid configuration")
        for (const { config, field } of fixture.invalidConfigs) {
          const result = validateConfig(fixture.connector, config)
          if (Result.isSuccess(result)) return yield* failWith(`accepted ${JSON.stringify(config)}`)
          yield* expectThat(
            result.failure.field === field,
            () =>
              `refused ${JSON.stringify(config)} naming "${result.failure.field}" (${result.failure.message}), expected "${field}"`
          )
        }
        return undefined
      })
    },
    {
      name: "accepts its fixture's configuration and decodes every document exactly",
      run: Effect.gen(function* () {
        const documents = samples(Math.max(60, fixture.statuses.length * 4))
        const config = yield* openPortal(fixture.portal(documents, notation))
        const result = validateConfig(fixture.connector, config)
        if (Result.isFailure(result)) {
          return yield* failWith(
            `its own configuration is refused at "${result.failure.field}": ${result.failure.message}`
          )
        }
        const fetched = yield* fetchOrFail(fixture, config)
        yield* compareWith(documents, fetched)
        for (const document of fetched) {
          const validation = validateDocument(document, fixture.connector.statusMapping)
          if (validation._tag === "Invalid") {
            return yield* failWith(
              `document ${document.documentKey} would be quarantined: ${validation.reasons.join("; ")}`
            )
          }
        }
        return undefined
      })
    },
    {
      name: "turns amounts into integer cents exactly, in every notation the portal uses",
      run: Effect.gen(function* () {
        for (const each of fixture.amountNotations) {
          const documents = samples(trickyCents.length * 3, each)
          const config = yield* openPortal(fixture.portal(documents, each))
          yield* compareWith(documents, yield* fetchOrFail(fixture, config), ["amountCents"])
        }
        return `notations: ${fixture.amountNotations.map((n) => `"${writeAmount(123456, n, 0)}"`).join(", ")}`
      })
    },
    {
      name: "writes dates as YYYY-MM-DD",
      run: Effect.gen(function* () {
        const documents = samples(40)
        const config = yield* openPortal(fixture.portal(documents, notation))
        const fetched = yield* fetchOrFail(fixture, config)
        yield* compareWith(documents, fetched, ["receivableDate", "dueDate"])
        return undefined
      })
    },
    {
      name: "maps every status the portal shows to the declared status",
      run: Effect.gen(function* () {
        yield* expectThat(fixture.statuses.length > 0, () => "the fixture declares no status")
        for (const [text, status] of fixture.statuses) {
          const normalized = normalizeStatus(text, fixture.connector.statusMapping)
          yield* expectThat(normalized === status, () => `"${text}" becomes ${normalized}, declared ${status}`)
        }
        return `${fixture.statuses.length} portal statuses`
      })
    },
    {
      name: "classifies failures as retryable or permanent, without revealing secrets",
      run: Effect.gen(function* () {
        yield* expectThat(
          fixture.failures.some((f) => f.retryable) && fixture.failures.some((f) => !f.retryable),
          () => "the fixture must give at least one retryable and one permanent failure"
        )
        const scenarios: Array<FailureScenario & { readonly environment: Readonly<Record<string, string>> }> =
          fixture.failures.map((scenario) => ({ ...scenario, environment: fixture.secrets ?? {} }))
        if (secretValues.length > 0) {
          // The fixture's own portal, with its secrets missing: permanent, and the message says which.
          scenarios.push({
            name: "secret not set",
            retryable: false,
            portal: fixture.portal(samples(1), notation),
            environment: {}
          })
        }
        for (const scenario of scenarios) {
          const config = yield* openPortal(scenario.portal)
          const outcome = yield* Effect.result(fetchAll(fixture, config, scenario.environment))
          if (Result.isSuccess(outcome)) return yield* failWith(`${scenario.name}: the fetch succeeded`)
          const failure = outcome.failure
          yield* expectThat(
            failure.retryable === scenario.retryable,
            () => `${scenario.name}: retryable is ${failure.retryable} ("${failure.message}")`
          )
          yield* expectThat(
            scenario.retryAfterSeconds === undefined || failure.retryAfterSeconds === scenario.retryAfterSeconds,
            () =>
              `${scenario.name}: retryAfterSeconds is ${failure.retryAfterSeconds}, the portal said ${scenario.retryAfterSeconds}`
          )
          yield* expectThat(!leaksSecret(failure.message), () => `${scenario.name}: the message reveals a secret`)
          yield* expectThat(failure.message.trim() !== "", () => `${scenario.name}: the message is empty`)
        }
        return `${scenarios.length} failure scenarios`
      })
    },
    {
      name: `streams ${streamedDocuments.toLocaleString("en")} documents, each once, keeping none (at most ${retainedBytesPerDocument} bytes a document, ${streamingHeapBoundMiB} MiB in all)`,
      run: Effect.gen(function* () {
        const measured = yield* measureStreaming(fixture, streamedDocuments)
        yield* expectThat(
          measured.documents === streamedDocuments,
          () => `${measured.documents} documents streamed, ${streamedDocuments} expected`
        )
        yield* expectThat(measured.eachOnce, () => "some documents came twice and others not at all")
        yield* expectThat(
          measured.bytesPerDocument <= retainedBytesPerDocument,
          () =>
            `retained heap grew by ${measured.bytesPerDocument.toFixed(0)} bytes a document while streaming (bound ${retainedBytesPerDocument}): documents are kept`
        )
        yield* expectThat(
          measured.peakMiB <= streamingHeapBoundMiB,
          () =>
            `retained heap grew by ${measured.peakMiB.toFixed(1)} MiB while streaming (bound ${streamingHeapBoundMiB} MiB)`
        )
        return `retained heap growth ${measured.peakMiB.toFixed(1)} MiB at most, ${measured.bytesPerDocument.toFixed(0)} bytes a document, ${measured.seconds.toFixed(1)} s`
      })
    },
    {
      name: "reports a document without a key instead of dropping it",
      run: Effect.gen(function* () {
        const documents = samples(30)
        const keyless = 7
        // The portal holds one document whose key is empty (a blank cell, an item without its id).
        const portalHolds: SampleDocuments = {
          count: documents.count,
          at: (i) => (i === keyless ? { ...documents.at(i), key: "" } : documents.at(i))
        }
        const config = yield* openPortal(fixture.portal(portalHolds, notation))
        const fetched = yield* fetchOrFail(fixture, config)
        const reported = fetched.filter((document) => (document.unreadable ?? []).length > 0)
        const read = fetched.filter((document) => (document.unreadable ?? []).length === 0)
        yield* expectThat(
          fetched.every((document) => document.documentKey.trim() !== ""),
          () => "a document with an empty key reached the sync, which would store it under that key"
        )
        yield* expectThat(reported.length > 0, () => "the document without a key was dropped without a word")
        const expected = new Set(Array.from({ length: documents.count }, (_, i) => documents.at(i).key))
        expected.delete(documents.at(keyless).key)
        yield* expectThat(
          read.length === expected.size && read.every((document) => expected.has(document.documentKey)),
          () => `the documents with keys are not exactly the ${expected.size} the portal holds`
        )
        return `reported as ${reported.map((document) => `"${document.documentKey}"`).join(", ")}`
      })
    },
    {
      name: "gives identical output for repeated fetches",
      run: Effect.gen(function* () {
        const documents = samples(50)
        const config = yield* openPortal(fixture.portal(documents, notation))
        const first = JSON.stringify(yield* fetchOrFail(fixture, config))
        const second = JSON.stringify(yield* fetchOrFail(fixture, config))
        yield* expectThat(first === second, () => "two fetches of an unchanged portal differ")
        return undefined
      })
    }
  ]
}
