import type { Tracer } from "@opentelemetry/api";
import type { ImageEngineShape } from "../../ports/engines/image-engine.ts";
import type { OcrEngineShape } from "../../ports/engines/ocr-engine.ts";
import type { TryOnEngineShape } from "../../ports/engines/tryon-engine.ts";
import { eventCategory } from "../../ports/event-bus.ts";
import type { EventStoreShape } from "../../ports/event-store.ts";
import type { ResultStoreShape } from "../../ports/result-store.ts";
import { childSpan } from "./effect-spans.ts";

/**
 * Child spans of the request for the work behind the ports: the event store, the engines, the
 * result store. Attributes name kinds (stream category, template, language), never an account,
 * key or result id.
 */
export const tracedEventStore =
  (tracer: Tracer) =>
  (store: EventStoreShape): EventStoreShape => ({
    ...store,
    appendToStream: (streamName, events, options) =>
      store
        .appendToStream(streamName, events, options)
        .pipe(childSpan(tracer, "event_store.append", { "its.stream.category": eventCategory(streamName), "its.events": events.length })),
    readStream: (streamName, options) =>
      store.readStream(streamName, options).pipe(childSpan(tracer, "event_store.read_stream", { "its.stream.category": eventCategory(streamName) })),
  });

export const tracedImageEngine =
  (tracer: Tracer) =>
  (engine: ImageEngineShape): ImageEngineShape => ({
    ...engine,
    render: (image, template, options) =>
      engine
        .render(image, template, options)
        .pipe(childSpan(tracer, "engine.image.render", { "its.template": template.template, "its.template_type": template.templateType })),
    transcode: (image, output) => engine.transcode(image, output).pipe(childSpan(tracer, "engine.image.transcode", { "its.format": output.format })),
    renderDesign: (design, inputs) =>
      engine.renderDesign(design, inputs).pipe(childSpan(tracer, "engine.image.render", { "its.template_type": "custom", "its.layers": design.layers.length })),
  });

export const tracedOcrEngine =
  (tracer: Tracer) =>
  (engine: OcrEngineShape): OcrEngineShape => ({
    ...engine,
    recognize: (request) =>
      engine
        .recognize(request)
        .pipe(childSpan(tracer, "engine.ocr.recognize", { "its.ocr.language": request.language, "its.ocr.output_format": request.outputFormat })),
  });

export const tracedTryOnEngine =
  (tracer: Tracer) =>
  (engine: TryOnEngineShape): TryOnEngineShape => ({
    ...engine,
    tryOn: (request) => engine.tryOn(request).pipe(childSpan(tracer, "engine.tryon")),
  });

export const tracedResultStore =
  (tracer: Tracer) =>
  (store: ResultStoreShape): ResultStoreShape => ({
    ...store,
    put: (result) => store.put(result).pipe(childSpan(tracer, "result_store.put", { "its.result.bytes": result.bytes.byteLength })),
    get: (resultId, now) => store.get(resultId, now).pipe(childSpan(tracer, "result_store.get")),
    putVariant: (variant) => store.putVariant(variant).pipe(childSpan(tracer, "result_store.put_variant", { "its.format": variant.format })),
    getVariant: (resultId, format, now) =>
      store.getVariant(resultId, format, now).pipe(childSpan(tracer, "result_store.get_variant", { "its.format": format })),
  });
