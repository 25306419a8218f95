/**
 * Waits for something a test can observe but not be told of, such as a session that another
 * connection keeps waiting, or a row another process writes: asks again every `interval`, at most
 * `attempts` times, and dies saying what was never seen. The pauses run on the wall clock whatever
 * clock the test has, as the thing awaited happens outside the test's fiber.
 */
import { Clock, Duration, Effect } from "effect"

const wallClock = Clock.Clock.defaultValue()

export const eventually = <E, R>(
  what: string,
  check: Effect.Effect<boolean, E, R>,
  {
    attempts = 400,
    interval = Duration.millis(25)
  }: { readonly attempts?: number; readonly interval?: Duration.Duration } = {}
): Effect.Effect<void, E, R> =>
  Effect.gen(function* () {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (yield* check) return
      yield* Effect.sleep(interval).pipe(Effect.provideService(Clock.Clock, wallClock))
    }
    return yield* Effect.die(
      new Error(`never saw ${what} (asked ${attempts} times, ${Duration.format(interval)} apart)`)
    )
  })
