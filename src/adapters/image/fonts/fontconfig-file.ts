import fs from "node:fs";
import path from "node:path";
import { FAMILY_ALIASES } from "./shipped-font-families.ts";

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const families = (names: ReadonlyArray<string>) => names.map((name) => `<family>${escapeXml(name)}</family>`).join("");

/**
 * A fontconfig file that sees only the shipped font folders (never /etc/fonts or the system's
 * fonts), caches their scan in the first of `cacheFolders` it may write (the others are read too),
 * maps the CJK names customers were given to the npm families, names the
 * generic families, and appends DejaVu Math TeX Gyre to every pattern: a family that is not there
 * resolves to that face, which no listed family is, so the start check can tell a missing family
 * from a present one. Hinting and antialiasing as Debian's defaults, so text draws as it did.
 */
export const fontconfigXml = (folders: ReadonlyArray<string>, cacheFolders: ReadonlyArray<string>): string =>
  [
    `<?xml version="1.0"?>`,
    `<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">`,
    `<fontconfig>`,
    ...folders.map((folder) => `  <dir>${escapeXml(folder)}</dir>`),
    ...cacheFolders.map((cacheFolder) => `  <cachedir>${escapeXml(cacheFolder)}</cachedir>`),
    ...Object.entries(FAMILY_ALIASES).map(
      ([family, members]) => `  <alias binding="same"><family>${escapeXml(family)}</family><prefer>${families(members)}</prefer></alias>`,
    ),
    `  <alias><family>sans-serif</family><prefer>${families(["Noto Sans", "DejaVu Sans"])}</prefer></alias>`,
    `  <alias><family>serif</family><prefer>${families(["Noto Serif", "DejaVu Serif"])}</prefer></alias>`,
    `  <alias><family>monospace</family><prefer>${families(["DejaVu Sans Mono"])}</prefer></alias>`,
    `  <match target="pattern"><edit name="family" mode="append_last"><string>DejaVu Math TeX Gyre</string></edit></match>`,
    `  <match target="font"><edit name="antialias" mode="assign"><bool>true</bool></edit><edit name="hinting" mode="assign"><bool>true</bool></edit>` +
      `<edit name="hintstyle" mode="assign"><const>hintslight</const></edit><edit name="rgba" mode="assign"><const>none</const></edit></match>`,
    `</fontconfig>`,
    ``,
  ].join("\n");

/**
 * Writes DATA_DIR/fontconfig/fonts.conf and points this process's fontconfig at it. Pango (inside
 * libvips) reads FONTCONFIG_FILE when it draws its first text, so this runs before any text is
 * drawn; whatever FONTCONFIG_FILE the environment held is replaced: the service never draws with
 * the system's fonts. Returns the file's path.
 */
export const useShippedFontconfig = (dataDir: string, folders: ReadonlyArray<string>, sharedCache?: string): string => {
  const folder = path.join(dataDir, "fontconfig");
  const file = path.join(folder, "fonts.conf");
  fs.mkdirSync(folder, { recursive: true });
  // The shared cache first; DATA_DIR's where it cannot be written (node_modules owned by root in the image).
  const xml = fontconfigXml(folders, [...(sharedCache === undefined ? [] : [sharedCache]), path.join(folder, "cache")]);
  if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== xml) {
    fs.writeFileSync(`${file}.tmp`, xml);
    fs.renameSync(`${file}.tmp`, file);
  }
  process.env["FONTCONFIG_FILE"] = file;
  return file;
};
