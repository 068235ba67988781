import fs from "node:fs";

/**
 * One face of a TrueType/OpenType collection (.ttc) as a font file of its own. Debian's
 * fonts-noto-cjk ships Noto Sans CJK only as collections, and satori reads single fonts only (it
 * refuses a collection: "Unsupported OpenType signature ttcf"), so the bench hands it the face the
 * template names, copied out table by table. Checksums are copied as they are: the tables are
 * unchanged, and neither satori nor resvg checks the file's own.
 */
const u16 = (data: Buffer, at: number) => data.readUInt16BE(at);
const u32 = (data: Buffer, at: number) => data.readUInt32BE(at);

interface TableRecord {
  readonly tag: string;
  readonly checksum: number;
  readonly offset: number;
  readonly length: number;
}

const tablesAt = (data: Buffer, directory: number): ReadonlyArray<TableRecord> =>
  Array.from({ length: u16(data, directory + 4) }, (_, i) => {
    const at = directory + 12 + i * 16;
    return { tag: data.toString("latin1", at, at + 4), checksum: u32(data, at + 4), offset: u32(data, at + 8), length: u32(data, at + 12) };
  });

/** The face's family names (name IDs 1 and 16, Windows platform, UTF-16BE). */
const familyNames = (data: Buffer, tables: ReadonlyArray<TableRecord>): ReadonlyArray<string> => {
  const name = tables.find((table) => table.tag === "name");
  if (name === undefined) return [];
  const strings = name.offset + u16(data, name.offset + 4);
  return Array.from({ length: u16(data, name.offset + 2) }, (_, i) => name.offset + 6 + i * 12)
    .filter((at) => u16(data, at) === 3 && [1, 16].includes(u16(data, at + 6)))
    .map((at) =>
      Buffer.from(data.subarray(strings + u16(data, at + 10), strings + u16(data, at + 10) + u16(data, at + 8)))
        .swap16()
        .toString("utf16le"),
    );
};

/** The face of `file` whose family is `family`, as a standalone font; a file that is not a collection is returned whole. */
export const fontFace = (file: string, family: string): Buffer => {
  const data = fs.readFileSync(file);
  if (data.toString("latin1", 0, 4) !== "ttcf") return data;
  const directories = Array.from({ length: u32(data, 8) }, (_, i) => u32(data, 12 + i * 4));
  const directory = directories.find((at) => familyNames(data, tablesAt(data, at)).includes(family));
  if (directory === undefined) throw new Error(`${file} holds no face of the family ${family}`);
  const tables = tablesAt(data, directory);
  const header = 12 + tables.length * 16;
  const padded = (length: number) => Math.ceil(length / 4) * 4;
  const out = Buffer.alloc(header + tables.reduce((sum, table) => sum + padded(table.length), 0));
  data.copy(out, 0, directory, directory + 12);
  let offset = header;
  tables.forEach((table, i) => {
    const at = 12 + i * 16;
    out.write(table.tag, at, "latin1");
    out.writeUInt32BE(table.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(table.length, at + 12);
    data.copy(out, offset, table.offset, table.offset + table.length);
    offset += padded(table.length);
  });
  return out;
};
