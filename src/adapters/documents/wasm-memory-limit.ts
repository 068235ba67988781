/**
 * Lowers the largest memory a WebAssembly module may grow to, by rewriting the maximum its binary
 * declares for its own memory (the memory section). Emscripten's loader asks the memory to grow
 * and treats a refusal as "out of memory" (malloc returns null; PDFium then aborts), so the module
 * stops at this cap instead of at the 2 GiB its build allows. One linear pass over the sections.
 */
const PAGE_BYTES = 65_536;
const MEMORY_SECTION = 5;
const HEADER_BYTES = 8;

const readLeb = (bytes: Uint8Array, at: number): { readonly value: number; readonly next: number } => {
  let value = 0;
  let shift = 0;
  let next = at;
  for (;;) {
    const byte = bytes[next++];
    if (byte === undefined || shift > 35) throw new Error("the WebAssembly binary is malformed (LEB128)");
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next };
  }
};

const leb = (value: number): Array<number> => {
  const out: Array<number> = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(rest > 0 ? low | 0x80 : low);
  } while (rest > 0);
  return out;
};

/**
 * The binary with its one defined memory limited to `maxBytes` (rounded down to whole 64 KiB
 * pages, never below the memory's initial size). Throws if the module defines no memory of its
 * own, so that a changed build cannot silently run without the cap.
 */
export const withMemoryMaximum = (binary: Uint8Array, maxBytes: number): Uint8Array => {
  for (let at = HEADER_BYTES; at < binary.length;) {
    const id = binary[at]!;
    const size = readLeb(binary, at + 1);
    const end = size.next + size.value;
    if (id === MEMORY_SECTION) {
      const count = readLeb(binary, size.next);
      const flags = binary[count.next]!;
      // One memory, 32-bit and not shared (flags 0: no maximum, 1: a maximum).
      if (count.value !== 1 || flags > 1) throw new Error("the WebAssembly module's memory is not one plain memory");
      const initial = readLeb(binary, count.next + 1);
      const pages = Math.max(initial.value, Math.floor(maxBytes / PAGE_BYTES));
      const body = [...leb(1), 1, ...leb(initial.value), ...leb(pages)];
      const section = Uint8Array.from([MEMORY_SECTION, ...leb(body.length), ...body]);
      const patched = new Uint8Array(at + section.length + binary.length - end);
      patched.set(binary.subarray(0, at));
      patched.set(section, at);
      patched.set(binary.subarray(end), at + section.length);
      return patched;
    }
    at = end;
  }
  throw new Error("the WebAssembly module defines no memory of its own");
};
