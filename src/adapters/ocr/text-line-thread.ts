import { serveModelThread } from "../threads/model-thread-server.ts";
import { analyseTextLines, type GreyImage, type TextLines } from "./text-line-analysis.ts";

/** Below the event loop's priority by this much, as the other engines' threads. */
const TEXT_LINE_NICENESS = 10;

/** The thread that measures a page's text lines (text-line-analysis.ts): see text-line-thread-client.ts. */
await serveModelThread(
  TEXT_LINE_NICENESS,
  async () =>
    async (image: GreyImage): Promise<TextLines> =>
      analyseTextLines(image),
);
