/**
 * Who a request comes from. Directly connected, the peer's address. Behind proxies the service
 * trusts (`TRUSTED_PROXIES`: addresses or CIDR blocks, comma-separated), the address the nearest
 * untrusted hop reported in `X-Forwarded-For`, read from the right, since anything left of the
 * first untrusted hop was written by the client itself and proves nothing.
 */
import { BlockList, isIP } from "node:net"
import { Context, Effect, Layer, Schema } from "effect"
import { commaList } from "./CommaList.ts"

export class ClientAddress extends Context.Service<
  ClientAddress,
  {
    readonly of: (peer: string | undefined, forwardedFor: string | undefined) => string | null
    /**
     * Whether the client reached the service over HTTPS: the listener speaks plain HTTP, so only
     * a trusted proxy can say so (`X-Forwarded-Proto: https`, its last value being its own).
     */
    readonly https: (peer: string | undefined, forwardedProto: string | undefined) => boolean
    /** Whether a connection's peer is one of the proxies the service trusts. */
    readonly isTrustedProxy: (peer: string) => boolean
  }
>()("adapters/http/ClientAddress") {}

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4")

// IPv4 peers often show as IPv4-mapped IPv6 (`::ffff:10.0.0.1`): compare them as IPv4.
const plain = (address: string) =>
  address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address

/**
 * The address a client counts against, for its connections (`ConnectionBudget`) and its
 * allowance (`AddressBudget`) alike: IPv4 as it is, IPv6 by its /64, which one client usually
 * holds whole.
 */
export const addressKey = (address: string): string => {
  const unmapped = plain(address)
  if (isIP(unmapped) !== 6) return unmapped
  const [head = "", tail = ""] = unmapped.split("::", 2)
  const left = head === "" ? [] : head.split(":")
  const right = tail === "" ? [] : tail.split(":")
  const groups = unmapped.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`
}

const entry = Schema.String.check(
  Schema.makeFilter(
    (text) => {
      const [address = "", bits, ...rest] = text.split("/")
      const maximum = isIP(address) === 4 ? 32 : 128
      return (
        isIP(address) !== 0 &&
        rest.length === 0 &&
        (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maximum))
      )
    },
    { expected: "addresses or CIDR blocks separated by commas, e.g. 10.0.0.0/8,127.0.0.1" }
  )
)

export const trustedProxies = commaList("TRUSTED_PROXIES", Schema.Array(entry))

export const make = (proxies: ReadonlyArray<string>) => {
  const trusted = new BlockList()
  for (const proxy of proxies) {
    const [address = "", bits] = proxy.split("/")
    if (bits === undefined) trusted.addAddress(address, family(address))
    else trusted.addSubnet(address, Number(bits), family(address))
  }
  const isTrusted = (address: string) => isIP(address) !== 0 && trusted.check(address, family(address))
  return ClientAddress.of({
    of: (peer, forwardedFor) => {
      if (peer === undefined) return null
      let client = plain(peer)
      if (proxies.length === 0 || forwardedFor === undefined || !isTrusted(client)) return client
      const hops = forwardedFor.split(",")
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = plain(hops[i]!.trim())
        if (isIP(hop) === 0) return client
        client = hop
        if (!isTrusted(hop)) return hop
      }
      return client
    },
    isTrustedProxy: (peer) => proxies.length > 0 && isTrusted(plain(peer)),
    https: (peer, forwardedProto) =>
      peer !== undefined &&
      forwardedProto !== undefined &&
      isTrusted(plain(peer)) &&
      forwardedProto.split(",").at(-1)?.trim().toLowerCase() === "https"
  })
}

export const layer = Layer.effect(ClientAddress, Effect.map(trustedProxies, make))
