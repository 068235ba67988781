import { Schema } from "effect";
import { ocrLanguageRequestPattern } from "../../../../ports/engines/ocr-engine.ts";
import { TRYON_METHOD } from "../../../../ports/engines/tryon-engine.ts";
import { GenerateTemplateType } from "../../api/field-schemas.ts";
import { ChargeReceipt } from "../receipts/receipt-schemas.ts";
import { OcrOutputFormat, TryOnSettings } from "./transformation-schemas.ts";

/**
 * The `data` of the transformations' successes (docs/api-decisions.md), in the envelope of
 * api/response-schemas.ts. Handlers encode what they send through these, and the OpenAPI document is
 * generated from them, so what is documented is what is sent. Fields are added, never removed or renamed.
 */
const Text = Schema.String;
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const Milliseconds = Schema.Finite.annotate({ description: "milliseconds" });
const DateTime = Schema.String.annotate({ format: "date-time" });
const RequestId = Schema.String.annotate({ description: "the transformation's id, as the audit trail records it" });

/** A stored result: its signed URL works without a key until it expires. */
const StoredResult = {
  requestId: RequestId,
  resultUrl: Schema.String.annotate({ format: "uri", description: "absolute HTTPS URL, signed; no key needed until expiresAt" }),
  expiresAt: DateTime,
  receipt: ChargeReceipt,
};

const PixelBox = {
  left: Schema.Int,
  top: Schema.Int,
  width: Count,
  height: Count,
};

/** What one drawn image of /generate says of itself. */
const GeneratedImageFields = {
  template: Schema.String.annotate({ description: "the catalog template's name, or your template's name" }),
  templateType: GenerateTemplateType,
  templateId: Schema.optionalKey(Schema.String.annotate({ description: "custom templates: the template's id" })),
  templateVersion: Schema.optionalKey(Count.annotate({ description: "custom templates: the version drawn" })),
  variant: Schema.optionalKey(Text.annotate({ description: "custom templates called with variants: the variant drawn (default: the default layout)" })),
  format: Schema.Literals(["jpeg", "png", "webp", "avif"]),
  width: Count,
  height: Count,
  bytes: Count,
  crop: Schema.NullOr(
    Schema.Struct({
      ...PixelBox,
      by: Schema.Literals(["face", "attention", "centre", "point"]).annotate({ description: "what placed the window" }),
    }),
  ).annotate({
    description: "the window a template that crops to fill took, in the uploaded image's pixels after EXIF orientation; null for templates that do not crop",
  }),
  faces: Schema.Array(
    Schema.Struct({
      box: Schema.Struct(PixelBox).annotate({ description: "brows to chin, in the uploaded image's pixels after EXIF orientation" }),
      score: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
    }),
  ).annotate({ description: "the faces found; empty when none were, or when the focus or the template did not look for them" }),
  placeholder: Schema.Struct({
    blurhash: Text.annotate({ description: "BlurHash of the result, 4×3 components (transparency shown on white)" }),
    thumbhash: Text.annotate({ description: "ThumbHash of the result, base64; keeps transparency and the aspect ratio" }),
  }).annotate({ description: "what a page can show while the result loads" }),
};

const VariantResult = Schema.Struct({
  resultUrl: StoredResult.resultUrl,
  expiresAt: DateTime,
  ...GeneratedImageFields,
}).annotate({ identifier: "GeneratedVariant", description: "one variant's result, as a /generate result gives it" });

export const GenerateImageData = Schema.Struct({
  ...StoredResult,
  ...GeneratedImageFields,
  processingTime: Milliseconds,
  results: Schema.optionalKey(
    Schema.Array(VariantResult).annotate({
      description:
        "custom templates called with variants: one result per variant, in the order asked (the fields around it repeat the first); " +
        "each variant is one transformation, all charged together or none",
    }),
  ),
});

export const VirtualTryOnData = Schema.Struct({
  ...StoredResult,
  settings: TryOnSettings,
  format: Schema.String.annotate({ description: "jpeg, or png (with alpha) when backgroundStyle is transparent" }),
  width: Count,
  height: Count,
  coverage: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })).annotate({
    description:
      "share (0-1) of what the person wore on the torso that the new garment covers. The old garment's area is taken to be the torso: the person's silhouette between the shoulder and the hip lines, less the arms in front of it and the face. On the rest (1 − coverage) the old garment still shows: the new one is shorter or narrower, or fitPreference is tight",
  }),
  method: Schema.Literal(TRYON_METHOD).annotate({
    description:
      "how the result was made: the product shot's parts (torso panel, sleeves) warped in 2-D onto the person's torso and arms and laid over the photo, lit by its broad shading; no generative model redraws the person",
  }),
  confidence: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })).annotate({
    description:
      "how sure the engine is of its reading of the person (0-1): the mean pose-keypoint score of shoulders, elbows, hips and face, times how frontal the shoulders are, the share of the torso inside the photo and the share of it the segmentation sees as the person. A photo too unsure for a believable result is refused instead (422 PERSON_TURNED_AWAY or TORSO_NOT_VISIBLE)",
  }),
  processingTime: Milliseconds,
});

const Box = Schema.Struct({ x0: Schema.Finite, y0: Schema.Finite, x1: Schema.Finite, y1: Schema.Finite });
const Word = { text: Text, confidence: Schema.Finite, bbox: Box };
const OcrWord = Schema.Struct(Word);
const LanguageOfText = Schema.optionalKey(Text.annotate({ description: "the language (one of data.language's) this text is in, by its script" }));
const OcrLine = Schema.Struct({ ...Word, words: Schema.Array(OcrWord), language: LanguageOfText });
const OcrBlock = Schema.Struct({ ...Word, lines: Schema.Array(OcrLine), language: LanguageOfText });

const OcrLanguageUsed = Text.check(Schema.isPattern(ocrLanguageRequestPattern));
const Confidence = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 }));
const FormatFields = {
  blocks: Schema.optionalKey(Schema.Array(OcrBlock).annotate({ description: "json only: blocks, lines and words with their boxes" })),
  hocr: Schema.optionalKey(Text.annotate({ description: "hocr only" })),
  tsv: Schema.optionalKey(Text.annotate({ description: "tsv only" })),
};

const OcrPage = Schema.Struct({
  page: Count.annotate({ description: "the page's number, from 1" }),
  text: Text.annotate({ description: '"" when the page holds no text' }),
  language: OcrLanguageUsed.annotate({ description: "the language this page was read in" }),
  confidence: Confidence,
  outputFormat: OcrOutputFormat,
  ...FormatFields,
});

export const OcrData = Schema.Struct({
  requestId: RequestId,
  receipt: ChargeReceipt,
  text: Text.annotate({ description: '"" when the image holds no text; for a document, the pages\' text joined by a blank line' }),
  language: OcrLanguageUsed.annotate({
    description:
      "the language used (eng+deu when several were asked); with auto, every language found (hin+eng: Hindi with Latin headings); for a document, the one most pages were read in",
  }),
  confidence: Confidence.annotate({ description: "0-100; for a document, the pages' confidence weighted by their characters" }),
  outputFormat: OcrOutputFormat,
  processingTime: Milliseconds,
  ...FormatFields,
  resultUrl: Schema.optionalKey(
    StoredResult.resultUrl.annotate({ description: "pdf only: the searchable PDF, one page per page read; signed, no key needed until expiresAt" }),
  ),
  expiresAt: Schema.optionalKey(DateTime.annotate({ description: "pdf only: when resultUrl stops working" })),
  pages: Schema.optionalKey(
    Schema.Array(OcrPage).annotate({
      description: "documents only (PDF, multi-page TIFF): each page's result, with the format's own field; every page is one transformation",
    }),
  ),
});
