/**
 * Where webhooks may be sent (SSRF): the addresses and ports a receiver may have, as pure
 * functions. An address is refused when it is private, loopback, link-local, a cloud metadata
 * service's, or otherwise not a public unicast one, in any form it is written (`127.1`,
 * `0x7f000001`, `017700000001`, `[::ffff:127.0.0.1]`, NAT64 and 6to4 wrappings), unless the
 * operator allows it, by name or range and on named ports only (`WEBHOOK_ALLOWED_HOSTS`). The
 * service's own listeners and its database are never receivers, allowed or not. The sender
 * applies this to every address a name resolves to, at connect time. Depends on nothing but the
 * language and the domain's bound on a URL.
 */
import { webhookUrlMaximum } from "../../core/webhooks/domain/Webhooks.ts"

/** An address as a number: 32 bits for IPv4, 128 for IPv6. */
export type Address = { readonly family: 4; readonly value: bigint } | { readonly family: 6; readonly value: bigint }

const part = (text: string): bigint | undefined => {
  if (/^0x[0-9a-f]*$/i.test(text)) return text.length === 2 ? 0n : BigInt(text)
  if (/^0[0-7]+$/.test(text)) return BigInt(`0o${text.slice(1)}`)
  if (/^(0|[1-9][0-9]*)$/.test(text)) return BigInt(text)
  return undefined
}

/**
 * IPv4 as `inet_aton` and URL parsers read it: one to four parts, each decimal, octal (a leading
 * 0) or hexadecimal (0x), the last filling the bytes left (`127.1` is 127.0.0.1).
 */
export const parseIpv4 = (text: string): Address | undefined => {
  const pieces = text.replace(/\.$/, "").split(".")
  if (pieces.length === 0 || pieces.length > 4) return undefined
  const values = pieces.map(part)
  if (values.some((value) => value === undefined)) return undefined
  const numbers = values as Array<bigint>
  const last = numbers.pop()!
  if (numbers.some((value) => value > 255n)) return undefined
  const lastBits = BigInt(8 * (4 - numbers.length))
  if (last >= 1n << lastBits) return undefined
  let value = 0n
  for (const byte of numbers) value = (value << 8n) | byte
  return { family: 4, value: (value << lastBits) | last }
}

/** IPv6 in its text forms, with `::`, an embedded dotted IPv4 tail, and a zone (ignored). */
export const parseIpv6 = (text: string): Address | undefined => {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (!/^[0-9a-f:.]+$/i.test(bare) || !bare.includes(":")) return undefined
  let groups = bare
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  if (tail !== null) {
    const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(tail[1]!)
    if (v4 === null || v4.slice(1).some((byte) => Number(byte) > 255)) return undefined
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number]
    groups = `${bare.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = groups.split("::")
  if (halves.length > 2) return undefined
  const split = (half: string) => (half === "" ? [] : half.split(":"))
  const head = split(halves[0]!)
  const rest = halves.length === 2 ? split(halves[1]!) : []
  const missing = 8 - head.length - rest.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest]
  if (all.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined
  return { family: 6, value: all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n) }
}

/** An address in any form a host may be written in; none for a name. */
export const parseAddress = (host: string): Address | undefined => parseIpv6(host) ?? parseIpv4(host)

interface Range {
  readonly family: 4 | 6
  readonly base: bigint
  readonly bits: number
}

/** `a.b.c.d/n` or `x::/n`; a lone address is its own /32 or /128. */
export const parseRange = (text: string): Range | undefined => {
  const [host, bits] = text.split("/")
  const address = host === undefined ? undefined : parseAddress(host)
  if (address === undefined) return undefined
  const width = address.family === 4 ? 32 : 128
  const length = bits === undefined ? width : Number(bits)
  if (!Number.isInteger(length) || length < 0 || length > width || (bits !== undefined && !/^\d+$/.test(bits))) {
    return undefined
  }
  return { family: address.family, base: address.value, bits: length }
}

export const inRange = (address: Address, range: Range): boolean => {
  if (address.family !== range.family) return false
  const width = BigInt(address.family === 4 ? 32 : 128)
  const shift = width - BigInt(range.bits)
  return address.value >> shift === range.base >> shift
}

const ranges = (texts: ReadonlyArray<string>) => texts.map((text) => parseRange(text)!)

/** Not public unicast: this host, private, shared (CGNAT), loopback, link-local (metadata), test, multicast, reserved. */
const refusedV4 = ranges([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4"
])

/** Unspecified, loopback, discard, protocol assignments (Teredo), documentation, unique local (AWS metadata), link-local, site-local, multicast. */
const refusedV6 = ranges([
  "::/128",
  "::1/128",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
  "64:ff9b:1::/48"
])

/** IPv6 forms that carry an IPv4 address: mapped, compatible, NAT64 and 6to4; judged by it. */
const embeddedV4 = (address: Address): Address | undefined => {
  if (address.family !== 6) return undefined
  const v = address.value
  const low32 = v & 0xffffffffn
  if (v >> 32n === 0xffffn || v >> 32n === 0n) return { family: 4, value: low32 }
  if (v >> 32n === 0x64ff9b0000000000000000n) return { family: 4, value: low32 }
  if (v >> 112n === 0x2002n) return { family: 4, value: (v >> 80n) & 0xffffffffn }
  return undefined
}

/** Whether an address is a public unicast one that webhooks may be sent to. */
export const isPublic = (address: Address): boolean => {
  const inner = embeddedV4(address)
  if (inner !== undefined) return isPublic(inner)
  return !(address.family === 4 ? refusedV4 : refusedV6).some((range) => inRange(address, range))
}

/**
 * One thing the operator allows beside public addresses: a host name (exact, any case) or an
 * address range, on the ports `first` to `last`.
 */
export interface Allowed {
  readonly host: string | Range
  readonly first: number
  readonly last: number
}

export interface Allowance {
  readonly entries: ReadonlyArray<Allowed>
}

export const noAllowance: Allowance = { entries: [] }

const hostName = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i

const portNumber = (text: string): number | undefined => {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0
  return port >= 1 && port <= 65535 ? port : undefined
}

/** `host:port` or `host:first-last`; an IPv6 address or range in brackets (`[::1]:8080`, `[fd00::/8]:443`). */
const parseAllowed = (entry: string): Allowed | string => {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry)
  const colon = entry.lastIndexOf(":")
  const [host, ports] =
    bracketed !== null
      ? [bracketed[1]!, bracketed[2]]
      : colon === -1
        ? [entry, undefined]
        : [entry.slice(0, colon), entry.slice(colon + 1)]
  if (bracketed === null && host.includes(":")) return `"${entry}": write an IPv6 address in brackets, [::1]:8080`
  if (ports === undefined) {
    return `"${entry}" names no port: write host:port or host:first-last (127.0.0.1:8080, hooks.internal:8000-8099)`
  }
  const [firstText, lastText, ...more] = ports.split("-")
  const first = portNumber(firstText!)
  const last = lastText === undefined ? first : portNumber(lastText)
  if (first === undefined || last === undefined || more.length > 0 || first > last) {
    return `"${entry}": a port is 1 to 65535, and a range's first port is not above its last`
  }
  const range = parseRange(host)
  if (range !== undefined) return { host: range, first, last }
  if (bracketed === null && hostName.test(host)) return { host: host.toLowerCase(), first, last }
  return `"${host}" is neither a host name nor an address range`
}

/**
 * `WEBHOOK_ALLOWED_HOSTS`: `host:port` and `host:first-last` entries (a host a name, an address
 * or a CIDR block) separated by commas or spaces. A host without a port is refused rather than
 * given every port: that was the old form's meaning, which opened every listener of the host.
 */
export const parseAllowance = (text: string): Allowance | string => {
  const entries: Array<Allowed> = []
  for (const entry of text.split(/[\s,]+/).filter((item) => item !== "")) {
    const allowed = parseAllowed(entry)
    if (typeof allowed === "string") return allowed
    entries.push(allowed)
  }
  return { entries }
}

const hostOf = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, "")

const names = (allowed: Allowed, host: string, address: Address | undefined) =>
  typeof allowed.host === "string"
    ? allowed.host === hostOf(host)
    : address !== undefined && inRange(address, allowed.host)

/** Whether the operator allows this host by name, or this address by range, on this port. */
export const allowedByOperator = (allowance: Allowance, host: string, port: number, address?: Address): boolean =>
  allowance.entries.some((allowed) => port >= allowed.first && port <= allowed.last && names(allowed, host, address))

/** Why an address of `host` may not receive webhooks on `port`; undefined when it may. */
export const addressProblem = (
  allowance: Allowance,
  host: string,
  port: number,
  address: Address
): string | undefined => {
  if (isPublic(address) || allowedByOperator(allowance, host, port, address)) return undefined
  return allowance.entries.some((allowed) => names(allowed, host, address))
    ? `port ${port} of ${host} is not open to webhooks`
    : `${host} resolves to a private, loopback, link-local or reserved address`
}

/** The host of a URL without IPv6 brackets, as it resolves. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "")

/** The port a URL connects to: its own, or its scheme's. */
export const portOf = (url: URL) => (url.port === "" ? (url.protocol === "http:" ? 80 : 443) : Number(url.port))

/**
 * A listener of the service itself (its API, its metrics) or its database, as configured: never
 * a receiver, whatever the operator allows. A wildcard or empty host is every address of the
 * machine.
 */
export interface OwnListener {
  readonly host: string
  readonly port: number
}

/** Whether a listener's host is every address of the machine it runs on. */
export const isWildcard = (host: string) => ["", "0.0.0.0", "::", "[::]"].includes(host)

const unwrapped = (address: Address): Address => embeddedV4(address) ?? address

/** Whether two addresses are one, an IPv4 address and its IPv6 forms alike. */
export const sameAddress = (a: Address, b: Address): boolean => {
  const [x, y] = [unwrapped(a), unwrapped(b)]
  return x.family === y.family && x.value === y.value
}

const loopbackOrUnspecified = ranges(["127.0.0.0/8", "0.0.0.0/8", "::1/128", "::/128"])

/** Whether an address reaches the machine itself: loopback, unspecified, or one of its interfaces'. */
export const isThisMachine = (address: Address, interfaces: ReadonlyArray<Address>): boolean =>
  loopbackOrUnspecified.some((range) => inRange(unwrapped(address), range)) ||
  interfaces.some((own) => sameAddress(own, address))

/**
 * Why a URL may not receive webhooks, judged without resolving its name: its form, its scheme
 * (`https`, or `http` for what the operator allows) and a literal address. Undefined when it may.
 */
export const urlProblem = (allowance: Allowance, text: string): string | undefined => {
  if (text.length > webhookUrlMaximum) return `a URL has at most ${webhookUrlMaximum} characters`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "not an absolute URL"
  }
  if (url.username !== "" || url.password !== "") return "a URL carries no credentials"
  const host = bareHost(url)
  const address = parseAddress(host)
  const port = portOf(url)
  if (url.protocol === "http:") {
    if (!allowedByOperator(allowance, host, port, address)) {
      return allowance.entries.some((allowed) => names(allowed, host, address))
        ? `port ${port} of ${host} is not open to webhooks`
        : "only https URLs receive webhooks"
    }
  } else if (url.protocol !== "https:") return "only https URLs receive webhooks"
  return address === undefined ? undefined : addressProblem(allowance, host, port, address)
}
