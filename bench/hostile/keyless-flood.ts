/**
 * A client with no key sending requests as fast as it can, as a hostile probe once did: how many
 * are answered 401 before the client address's allowance runs out, how many 429, how long it
 * takes. Run against a running server (loopback only):
 *
 *   node bench/hostile/keyless-flood.ts http://127.0.0.1:3000 [requests=6000] [concurrency=16]
 */
const [base = "http://127.0.0.1:3000", requestsText = "6000", concurrencyText = "16"] = process.argv.slice(2)
const total = Number(requestsText)
const statuses = new Map<number, number>()
let sent = 0
const started = performance.now()
const client = async () => {
  while (sent < total) {
    sent += 1
    const response = await fetch(`${base}/v1/vendors`)
    await response.arrayBuffer()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
  }
}
await Promise.all(Array.from({ length: Number(concurrencyText) }, client))
const seconds = (performance.now() - started) / 1000
process.stdout.write(
  `${JSON.stringify({ requests: total, seconds: Number(seconds.toFixed(2)), statuses: Object.fromEntries(statuses) })}\n`
)
