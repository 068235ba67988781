import { Effect, Schema } from "effect";
import { InvalidRequest } from "../../../application/errors.ts";

/** A query value as sent, held to the schema the document shows for it: refused, a 400 naming the parameter. */
export const queryValue = <S extends Schema.Codec<unknown, string>>(schema: S, name: string, value: string | undefined) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(() => {
      const message = `${name}: ${String(schema.ast.annotations?.["description"] ?? "not a valid value")}`;
      return new InvalidRequest({ message, details: [{ path: name, message }] });
    }),
  );
