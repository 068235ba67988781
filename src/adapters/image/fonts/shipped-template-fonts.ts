import { Effect, Layer } from "effect";
import { TemplateFonts } from "../../../ports/engines/template-fonts.ts";
import { checkFonts } from "./font-check.ts";
import { useShippedFontconfig } from "./fontconfig-file.ts";
import { sharedFontCacheFolder, shippedFontFolders } from "./shipped-font-families.ts";

/**
 * The families text layers may name, from the fonts shipped as npm packages: fontconfig pointed at
 * them alone (under DATA_DIR), then each family checked by drawing a sample of every script it
 * claims. A family that fails is logged and left out; the service still starts. The log says what
 * the check took (docs/fonts.md has its cost in memory).
 */
export const shippedTemplateFontsLayer = (dataDir: string) =>
  Layer.effect(TemplateFonts)(
    Effect.gen(function* () {
      const started = performance.now();
      const fontconfigFile = useShippedFontconfig(dataDir, shippedFontFolders(), sharedFontCacheFolder());
      const { available, unavailable } = yield* Effect.promise(() => checkFonts());
      const ms = Math.round(performance.now() - started);
      for (const { family, script, reason } of unavailable) {
        yield* Effect.logWarning(`font "${family}" left out of GET /templates/fonts: its ${script} sample does not draw (${reason})`, fontconfigFile);
      }
      const families = available.length + new Set(unavailable.map(({ family }) => family)).size;
      yield* Effect.logInfo(`fonts: ${available.length} of ${families} families draw every script they claim; checked in ${ms} ms`, fontconfigFile);
      return { available };
    }),
  );
