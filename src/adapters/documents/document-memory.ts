/**
 * What the document engine (PDFium in its thread) may use, and what a PDF is expected to cost
 * in it, so that a document is admitted by what it will cost rather than by its upload size.
 */
const MiB = 1024 * 1024;

/**
 * The default cap on PDFium's memory: an eighth of what this process may use (its cgroup limit,
 * else the machine's), between 256 MiB and 384 MiB. 256 MiB holds the largest document the
 * default limits admit (a 40-megapixel RGB image decodes to ~180 MiB of PDFium's heap). The
 * ceiling bounds how long a PDF bomb runs before it fills the cap: ~0.7 s at 256 MiB and ~1 s at
 * 512 MiB on two loaded cores, and the refusal must come within 2 s.
 */
export const defaultDocumentMemoryBytes = (memoryBytes: number): number => Math.min(384 * MiB, Math.max(256 * MiB, Math.floor(memoryBytes / 8)));

/** An image of `pixels` as PDFium decodes it: up to four bytes a pixel (RGB with alpha, CMYK). */
const decodedImageBytes = (pixels: number) => pixels * 4;

/** The grey page bitmap PDFium draws into: one byte a pixel. */
const pageBitmapBytes = (pixels: number) => pixels;

/**
 * PDFium's memory to draw one page showing an image of `imagePixels`: the file (copied into its
 * heap), the page bitmap and the decoded image.
 */
export const pdfPageCostBytes = (fileBytes: number, pagePixels: number, imagePixels: number): number =>
  fileBytes + pageBitmapBytes(pagePixels) + decodedImageBytes(imagePixels);

export const mebibytes = (bytes: number): number => Math.round(bytes / MiB);
