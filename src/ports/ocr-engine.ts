import { Context, type Effect } from "effect";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "./errors.ts";
import type { ValidatedImage } from "./image.ts";

/** Text recognition. `language` is "auto" or one of `languages`. */
export type OcrOutputFormat = "text" | "json" | "hocr" | "tsv";

export interface OcrWord {
  readonly text: string;
  readonly confidence: number;
  readonly bbox: { readonly x0: number; readonly y0: number; readonly x1: number; readonly y1: number };
}
export interface OcrLine extends OcrWord {
  readonly words: ReadonlyArray<OcrWord>;
}
export interface OcrBlock extends OcrWord {
  readonly lines: ReadonlyArray<OcrLine>;
}

export interface OcrResult {
  readonly text: string;
  /** The language used: the detected one when "auto" was asked. */
  readonly language: string;
  /** 0-100. */
  readonly confidence: number;
  readonly blocks: ReadonlyArray<OcrBlock>;
  readonly hocr?: string;
  readonly tsv?: string;
}

export interface OcrEngineShape {
  readonly languages: ReadonlyArray<string>;
  readonly recognize: (request: {
    readonly image: ValidatedImage;
    readonly language: string;
    readonly outputFormat: OcrOutputFormat;
  }) => Effect.Effect<OcrResult, InvalidImage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class OcrEngine extends Context.Service<OcrEngine, OcrEngineShape>()("OcrEngine") {}
