import { BlockList, isIP } from "node:net";
import { Layer } from "effect";
import { AddressRanges, type AddressRangesShape } from "../../ports/address-ranges.ts";

const MAX_LISTS = 10_000;

const familyOf = (address: string): "ipv4" | "ipv6" | undefined => {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined;
};

/** Parsed once: a CIDR text and its parts, or undefined. */
const parse = (range: string) => {
  const [address = "", prefixText, ...rest] = range.trim().toLowerCase().split("/");
  const family = familyOf(address);
  if (family === undefined || rest.length > 0) return undefined;
  const max = family === "ipv4" ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix <= max ? { address, prefix, family, text: `${address}/${prefix}` } : undefined;
};

/**
 * Node's net.BlockList: IPv4 and IPv6 subnets, and an IPv4-mapped IPv6 client address
 * (::ffff:203.0.113.77, what a dual-stack socket reports) is matched against IPv4 ranges. A list
 * is built once per allowlist and kept (keys are few; the most recently built are kept).
 */
export const makeBlockListAddressRanges = (): AddressRangesShape => {
  const lists = new Map<string, BlockList>();
  const listOf = (ranges: ReadonlyArray<string>): BlockList => {
    const id = ranges.join(",");
    const known = lists.get(id);
    if (known !== undefined) return known;
    const list = new BlockList();
    for (const range of ranges) {
      const parsed = parse(range);
      if (parsed !== undefined) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    if (lists.size >= MAX_LISTS) lists.delete(lists.keys().next().value!);
    lists.set(id, list);
    return list;
  };
  return {
    normalize: (range) => parse(range)?.text,
    contains: (ranges, address) => {
      const family = familyOf(address);
      return family !== undefined && listOf(ranges).check(address, family);
    },
  };
};

export const blockListAddressRanges = Layer.sync(AddressRanges)(makeBlockListAddressRanges);
