import path from "node:path";
import { Effect, Layer } from "effect";
import { TemplateFonts } from "../../../ports/engines/template-fonts.ts";
import { checkFonts } from "./font-check.ts";
import { cachedFontCheck, fontCheckKey } from "./font-check-cache.ts";
import { fontconfigXml, useShippedFontconfig } from "./fontconfig-file.ts";
import { claimedScripts, sharedFontCacheFolder, shippedFontFolders } from "./shipped-font-families.ts";

/**
 * The families text layers may name, from the fonts shipped as npm packages: fontconfig pointed at
 * them alone (under DATA_DIR), then each family checked by drawing a sample of every script it
 * claims, or that check's answer kept from an earlier start with the same files and libraries
 * (font-check-cache.ts). A family that fails is logged and left out; the service still starts. The
 * log says what the check took (docs/fonts.md has its cost in memory).
 */
export const shippedTemplateFontsLayer = (dataDir: string) =>
  Layer.effect(TemplateFonts)(
    Effect.gen(function* () {
      const started = performance.now();
      const folders = shippedFontFolders();
      const fontconfigFile = useShippedFontconfig(dataDir, folders, sharedFontCacheFolder());
      const claims = claimedScripts();
      const { check, kept } = yield* Effect.promise(() =>
        cachedFontCheck(
          [
            path.join(path.dirname(sharedFontCacheFolder()), "image-transformation-service-font-check.json"),
            path.join(path.dirname(fontconfigFile), "font-check.json"),
          ],
          fontCheckKey(fontconfigXml(folders, []), folders, claims),
          () => checkFonts(claims),
        ),
      );
      const { available, unavailable } = check;
      const ms = Math.round(performance.now() - started);
      for (const { family, script, reason } of unavailable) {
        yield* Effect.logWarning(`font "${family}" left out of GET /templates/fonts: its ${script} sample does not draw (${reason})`, fontconfigFile);
      }
      const families = available.length + new Set(unavailable.map(({ family }) => family)).size;
      const how = kept ? `as checked at an earlier start with the same files and libraries; read in ${ms} ms` : `checked in ${ms} ms`;
      yield* Effect.logInfo(`fonts: ${available.length} of ${families} families draw every script they claim; ${how}`, fontconfigFile);
      return { available };
    }),
  );
