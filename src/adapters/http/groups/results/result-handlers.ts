import { Effect, Option } from "effect";
import { NotFound } from "../../../../application/errors.ts";
import { makeResultFormats } from "../../../../application/transformations/result-formats.ts";
import { Clock } from "../../../../ports/clock.ts";
import type { ResultUrlSigner } from "../../../results/signed-result-url.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import { queryValue } from "../../api/query-value.ts";
import { InvalidSignature } from "../../errors/protocol-errors.ts";
import { ResultFormat } from "./result-schemas.ts";
import type { results } from "./results-api.ts";

/** Stored results (results-api.ts), behind the URLs `resultUrls` signed, in the format asked for or negotiated. */
export const resultHandlers = ({ resultUrls }: { readonly resultUrls: ResultUrlSigner }): GroupHandlers<typeof results, AppServices> => {
  const resultFormats = makeResultFormats();
  return {
    getResult: ({ params, query, querystring, accept }) =>
      Effect.gen(function* () {
        const named = query.format === undefined ? undefined : yield* queryValue(ResultFormat, "format", query.format);
        const now = (yield* Clock).now();
        const check = resultUrls.verify(params.resultId, querystring, now);
        if (check === "tampered") return yield* new InvalidSignature();
        const served =
          check === "ok" ? yield* resultFormats.serve(params.resultId, now, { ...(named && { named }), ...(accept && { accept }) }) : Option.none();
        if (Option.isNone(served)) return yield* new NotFound({ message: "The result does not exist or has expired." });
        const { result, negotiated } = served.value;
        const maxAge = Math.max(0, Math.floor((result.expiresAt.getTime() - now.getTime()) / 1000));
        const headers = { "Cache-Control": `private, max-age=${maxAge}`, ...(negotiated && { Vary: "Accept" }) };
        return { bytes: result.bytes, contentType: result.contentType, headers };
      }),
  };
};
