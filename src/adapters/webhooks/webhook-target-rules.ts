import { BlockList, isIP } from "node:net";

/**
 * Where webhooks may go (SSRF): only https, and never an address inside the deployment's reach —
 * loopback, private, link-local (the cloud metadata service at 169.254.169.254), unspecified,
 * multicast, CGNAT, reserved. `allowInsecure` (WEBHOOK_ALLOW_INSECURE_TARGETS, development and
 * tests) lets http, loopback and private addresses through; never link-local or the others.
 */
export const MAX_URL_LENGTH = 2048;

const range = (list: BlockList, cidrs: ReadonlyArray<string>, type: "ipv4" | "ipv6") => {
  for (const cidr of cidrs) {
    const [network, prefix] = cidr.split("/");
    list.addSubnet(network!, Number(prefix), type);
  }
  return list;
};

/** Loopback and private ranges: what the insecure flag allows. */
const local = range(range(new BlockList(), ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"], "ipv4"), ["::1/128", "fc00::/7"], "ipv6");

/** Never a target, whatever the flag. */
const never = range(
  range(
    new BlockList(),
    [
      "0.0.0.0/8", // "this network", 0.0.0.0 unspecified
      "100.64.0.0/10", // CGNAT
      "169.254.0.0/16", // link-local, cloud metadata
      "192.0.0.0/24", // IETF protocol assignments
      "192.0.2.0/24", // documentation
      "198.18.0.0/15", // benchmarking
      "198.51.100.0/24",
      "203.0.113.0/24",
      "224.0.0.0/4", // multicast
      "240.0.0.0/4", // reserved, broadcast
    ],
    "ipv4",
  ),
  [
    "::/128", // unspecified
    "::/96", // IPv4-compatible (deprecated): could name any IPv4 address
    "64:ff9b::/96", // NAT64: an IPv4 address in disguise
    "100::/64", // discard
    "2001:db8::/32", // documentation
    "2002::/16", // 6to4: an IPv4 address in disguise
    "fe80::/10", // link-local
    "fec0::/10", // site-local (deprecated)
    "ff00::/8", // multicast
  ],
  "ipv6",
);

/** `::ffff:a.b.c.d` (or its hex form) is that IPv4 address: checked as one. */
const unmapped = (address: string): { readonly address: string; readonly type: "ipv4" | "ipv6" } => {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted !== null && (lower.startsWith("::") || lower.startsWith("0:"))) return { address: dotted[1]!, type: "ipv4" };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex !== null) {
    const high = Number.parseInt(hex[1]!, 16);
    const low = Number.parseInt(hex[2]!, 16);
    return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, type: "ipv4" };
  }
  return { address, type: isIP(address) === 4 ? "ipv4" : "ipv6" };
};

/** Why this address may not be reached; undefined when it may. */
export const addressProblem = (address: string, allowInsecure: boolean): string | undefined => {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const { address: checked, type } = unmapped(address);
  // First: ::1 sits inside ::/96 (IPv4-compatible), which is never a target.
  if (local.check(checked, type)) return allowInsecure ? undefined : `${address} is a loopback or private address`;
  if (never.check(checked, type)) return `${address} is a link-local, unspecified, multicast, CGNAT or reserved address`;
  return undefined;
};

/** A URL's host as an address or a name: URL keeps IPv6 literals in brackets. */
export const hostOf = (url: URL): string => (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname);

/** What is wrong with the url as written, before any name is resolved; undefined when nothing. */
export const urlProblem = (raw: string, allowInsecure: boolean): string | undefined => {
  if (raw.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not an absolute URL";
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) return "only https URLs may receive webhooks";
  if (url.username !== "" || url.password !== "") return "credentials in the URL are not allowed";
  if (raw.includes("#")) return "a fragment is not allowed";
  const host = hostOf(url);
  if (host === "") return "no host";
  return isIP(host) === 0 ? undefined : addressProblem(host, allowInsecure);
};
