import { Context } from "effect";

/** IP address ranges (CIDR, IPv4 and IPv6): what a key's allowlist is checked with. */
export interface AddressRangesShape {
  /** The range as recorded (a bare address becomes /32 or /128), or undefined when it is not one. */
  readonly normalize: (range: string) => string | undefined;
  /** Whether the address lies in one of the ranges (as `normalize` gave them). */
  readonly contains: (ranges: ReadonlyArray<string>, address: string) => boolean;
}

export class AddressRanges extends Context.Service<AddressRanges, AddressRangesShape>()("AddressRanges") {}
