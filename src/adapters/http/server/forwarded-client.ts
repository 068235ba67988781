import { BlockList, isIP } from "node:net";

/**
 * Who a request came from, when proxies stand in front (TRUST_PROXY). Each proxy appends the
 * address it received the request from to `X-Forwarded-For`, so only the entries written by
 * proxies we trust are believed: counting from the right, past the trusted hops. Everything to
 * the left of that was written by the client and is ignored, however it looks. The protocol is
 * read the same way from `X-Forwarded-Proto`.
 */
export type TrustProxy =
  /** This many proxies in front (0: none; the socket's peer is the client). */
  | { readonly hops: number }
  /** Proxies known by address or subnet (`10.0.0.0/8`, `::1`): every hop from one of them is trusted. */
  | { readonly proxies: BlockList };

export const NO_PROXY: TrustProxy = { hops: 0 };

export interface ForwardedClient {
  readonly address: string;
  /** The protocol the outermost trusted proxy saw, lower-cased; undefined when no proxy is trusted or it did not say. */
  readonly protocol: string | undefined;
}

/** "::ffff:10.0.0.1" is the IPv4 peer 10.0.0.1 on a dual-stack socket. */
const plainAddress = (address: string): string => (address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

/** An X-Forwarded-For entry as an address, without brackets or port; undefined when it is none. */
const entryAddress = (entry: string): string | undefined => {
  let address = entry.trim();
  if (address.startsWith("[")) address = address.slice(1, address.indexOf("]") < 0 ? undefined : address.indexOf("]"));
  else if (address.indexOf(":") === address.lastIndexOf(":") && address.includes(".")) address = address.split(":")[0] ?? "";
  return isIP(address) === 0 ? undefined : plainAddress(address);
};

const isTrusted = (trust: TrustProxy, address: string, hopsSoFar: number): boolean =>
  "hops" in trust ? hopsSoFar < trust.hops : trust.proxies.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");

export const forwardedClient = (trust: TrustProxy, peer: string, forwardedFor: string, forwardedProto: string): ForwardedClient => {
  let address = plainAddress(peer);
  let hops = 0;
  // Entries are read right to left and only while trusted: a forged list costs its own length once.
  const entries = forwardedFor === "" ? [] : forwardedFor.split(",");
  while (isTrusted(trust, address, hops)) {
    const next = entries.pop();
    const nextAddress = next === undefined ? undefined : entryAddress(next);
    if (nextAddress === undefined) break;
    address = nextAddress;
    hops++;
  }
  if (hops === 0) return { address, protocol: undefined };
  const protocols = forwardedProto.split(",");
  // A proxy may replace the header instead of appending: then fewer entries than hops, and the first is the outermost's.
  const protocol = protocols[Math.max(0, protocols.length - hops)]?.trim().toLowerCase();
  return { address, protocol: protocol === "" ? undefined : protocol };
};

/** TRUST_PROXY as configured: `true`/`false`, a number of hops, or a comma-separated list of proxy addresses and subnets. */
export const parseTrustProxy = (value: string | undefined): TrustProxy => {
  if (value === undefined || value === "" || value === "false") return NO_PROXY;
  if (value === "true") return { hops: 1 };
  if (/^\d{1,2}$/.test(value)) return { hops: Number(value) };
  const proxies = new BlockList();
  for (const item of value.split(",").map((part) => part.trim())) {
    const [address = "", prefix] = item.split("/");
    const family = isIP(address);
    if (family === 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
      throw new RangeError(
        `TRUST_PROXY: "${item.slice(0, 64)}" is not an address or subnet (expected true, false, a number of hops, or addresses like 10.0.0.0/8,::1)`,
      );
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(prefix), type);
  }
  return { proxies };
};

export const trustsAnyProxy = (trust: TrustProxy): boolean => !("hops" in trust) || trust.hops > 0;
