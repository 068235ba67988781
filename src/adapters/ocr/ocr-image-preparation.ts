import sharp from "sharp";
import { InvalidImage } from "../../ports/errors.ts";
import type { PreparedFrame } from "./ocr-image-geometry.ts";
import type { GreyImage, TextLines } from "./text-line-analysis.ts";

/**
 * Decodes client bytes once into the upright image (EXIF orientation applied, as the port
 * promises, transparency on white), then renders the copies an engine reads: turned,
 * enlarged or grey as the engine asks. Bytes that do not decode reject with the port's InvalidImage.
 */

export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** Grey (1) for a grey image, else RGB (3): a scanned page decodes to a third of the memory. */
  readonly channels: 1 | 3;
  /** Row-major. */
  readonly pixels: Buffer;
}

const guard = async <A>(decode: () => Promise<A>): Promise<A> => {
  try {
    return await decode();
  } catch {
    throw new InvalidImage({ message: "the image could not be decoded" });
  }
};

export const decodeUpright = (bytes: Uint8Array): Promise<DecodedImage> =>
  guard(async () => {
    const { channels: stored, isPalette } = await sharp(bytes).metadata();
    // A grey image (with or without transparency) stays grey: 8 bits a pixel, as every engine reads it.
    const grey = (stored === 1 || stored === 2) && isPalette !== true;
    const { data, info } = await sharp(bytes, { autoOrient: true, animated: false })
      .flatten({ background: "#ffffff" })
      .toColourspace(grey ? "b-w" : "srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== (grey ? 1 : 3)) throw new Error(`decoded to ${info.channels} channels`);
    return { width: info.width, height: info.height, channels: grey ? 1 : 3, pixels: data };
  });

/** Below and above these the resolution an image states is a default, not its scan's (72 dpi from a camera). */
const believableDpi = { minimum: 100, maximum: 1200 };
/** The scans' usual resolution, and the one PDF pages are drawn at for reading. */
const assumedDpi = 300;

/** Below this Tesseract takes a stated resolution for none and estimates one from the text. */
const tesseractMinimumDpi = 70;

/** The resolution the image states, where Tesseract would take it: what the CLI reads from the file's header. */
export const statedResolution = (bytes: Uint8Array): Promise<number | undefined> =>
  guard(async () => {
    const { density } = await sharp(bytes).metadata();
    return density !== undefined && density >= tesseractMinimumDpi ? density : undefined;
  });

/** The resolution the image was scanned at, for sizing it in print: what it states when believable, else 300 dpi. */
export const printResolution = async (bytes: Uint8Array): Promise<number> => {
  const density = await statedResolution(bytes);
  return density !== undefined && density >= believableDpi.minimum && density <= believableDpi.maximum ? density : assumedDpi;
};

const fromRaw = (image: DecodedImage) => sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: image.channels } });

/** Tilt and line height of the upright image, measured by `analyse` (in a thread: text-line-thread-client.ts) on a grey copy at most 800 px wide. */
export const measureTextLines = async (image: DecodedImage, analyse: (grey: GreyImage) => Promise<TextLines>): Promise<TextLines> => {
  const { data, info } = await fromRaw(image)
    .resize({ width: Math.min(800, image.width) })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const lines = await analyse({ width: info.width, height: info.height, channels: 1, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
  return { ...lines, lineHeight: lines.lineHeight === undefined ? undefined : (lines.lineHeight * image.width) / info.width };
};

export interface Preparation {
  /** Clockwise degrees. */
  readonly rotation: number;
  readonly scale: number;
  readonly grayscale: boolean;
}

export interface PreparedRaw extends PreparedFrame {
  /** RGB, row-major, at the prepared (rotated, scaled) size. */
  readonly rgb: Buffer;
  readonly rawWidth: number;
  readonly rawHeight: number;
}

/**
 * PNG with fast compression (tesseract.js decodes it), or binary PNM, PGM when grey, else PPM: the
 * native CLI reads an A4 page at 300 dpi ~0.5 s faster from it than from a PNG.
 */
export type ImageEncoding = "png" | "pnm";

export type PreparedImage = PreparedFrame &
  (
    | { readonly encoding: "png"; readonly bytes: Buffer }
    /** `pixels`: where the header ends and the pixels, of `shape`, begin. */
    | { readonly encoding: "pnm"; readonly bytes: Buffer; readonly pixels: number; readonly shape: RawShape }
  );
interface RawShape {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3;
}

const prepared = async (image: DecodedImage, preparation: Preparation) => {
  const { rotation, scale } = preparation;
  // Rotating first (libvips grows the canvas to fit) gives the canvas size the frame maps back from.
  const rotated =
    rotation === 0
      ? { data: image.pixels, info: { width: image.width, height: image.height, channels: image.channels } }
      : await fromRaw(image).rotate(rotation, { background: "#ffffff" }).raw().toBuffer({ resolveWithObject: true });
  let pipeline = sharp(rotated.data, { raw: { width: rotated.info.width, height: rotated.info.height, channels: rotated.info.channels as 1 | 2 | 3 | 4 } });
  if (scale !== 1) pipeline = pipeline.resize({ width: Math.round(rotated.info.width * scale), kernel: "lanczos3" });
  if (preparation.grayscale) pipeline = pipeline.greyscale();
  // A grey image stays one band in every output (libvips writes a PNG of it as RGB otherwise).
  if (preparation.grayscale || image.channels === 1) pipeline = pipeline.toColourspace("b-w");
  const frame: PreparedFrame = {
    width: image.width,
    height: image.height,
    rotation,
    scale,
    canvasWidth: rotated.info.width,
    canvasHeight: rotated.info.height,
  };
  return { pipeline, frame };
};

/** The PNM of pixels as they are: its header, then the pixels (one copy, no pass through libvips). */
const pnmOf = (frame: PreparedFrame, pixels: Buffer, shape: RawShape): PreparedImage => {
  const header = Buffer.from(`P${shape.channels === 1 ? 5 : 6}\n${shape.width} ${shape.height}\n255\n`, "latin1");
  return { ...frame, encoding: "pnm", bytes: Buffer.concat([header, pixels]), pixels: header.length, shape };
};

/** Nothing to turn, scale or grey: the upright pixels are the prepared ones (a scanned page, usually). */
const unchanged = (image: DecodedImage, { rotation, scale, grayscale }: Preparation) => rotation === 0 && scale === 1 && (image.channels === 1 || !grayscale);

export const prepareImage = async (image: DecodedImage, preparation: Preparation, encoding: ImageEncoding): Promise<PreparedImage> => {
  if (encoding === "pnm" && unchanged(image, preparation)) {
    // ~80 ms of libvips CPU saved on an A4 page at 300 dpi: a copy through a pipeline that changes nothing.
    const { width, height, channels } = image;
    return pnmOf({ width, height, rotation: 0, scale: 1, canvasWidth: width, canvasHeight: height }, image.pixels, { width, height, channels });
  }
  const { pipeline, frame } = await prepared(image, preparation);
  // The PNG straight from the pipeline: its pixels never come back to JavaScript, whose garbage
  // collector a page-sized raw buffer would wake on the event loop (~100 ms for a 40 MP page).
  if (encoding === "png") return { ...frame, encoding, bytes: await pipeline.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer() };
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1 && info.channels !== 3) throw new Error(`prepared ${info.channels} channels`);
  return pnmOf(frame, data, { width: info.width, height: info.height, channels: info.channels });
};

/** The prepared image as PNG, for the steps that crop or tile it with sharp (which reads no PNM). */
export const preparedPng = (image: PreparedImage): Promise<Buffer> => {
  if (image.encoding === "png") return Promise.resolve(image.bytes);
  return sharp(image.bytes.subarray(image.pixels), { raw: image.shape })
    .toColourspace(image.shape.channels === 1 ? "b-w" : "srgb")
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
};

export const prepareRaw = async (image: DecodedImage, preparation: Omit<Preparation, "grayscale">): Promise<PreparedRaw> => {
  const { pipeline, frame } = await prepared(image, { ...preparation, grayscale: false });
  const { data, info } = await pipeline.removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  return { ...frame, rgb: data, rawWidth: info.width, rawHeight: info.height };
};
