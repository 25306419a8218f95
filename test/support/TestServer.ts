/**
 * The service's HTTP routes on a real socket (loopback, a free port) over the test file's own
 * database, exactly as `app/main.ts` wires them. Yields the base URL; requests go through `fetch`.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import * as Server from "../../adapters/http/Server.ts"
import { ServicesLive } from "../../app/Layers.ts"
import { freePort } from "./ports.ts"
import * as TestDatabase from "./TestDatabase.ts"

export class BaseUrl extends Context.Service<BaseUrl, string>()("test/BaseUrl") {}

export const layer = Layer.unwrap(
  Effect.map(Effect.promise(freePort), (port) =>
    Layer.mergeAll(
      Layer.succeed(BaseUrl, `http://127.0.0.1:${port}`),
      HttpRouter.serve(Server.routes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(ServicesLive),
        Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
      )
    )
  )
).pipe(Layer.provideMerge(TestDatabase.layer))
