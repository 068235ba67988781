import type { KeyDirectory } from "../../../application/access/key-directory.ts";
import type { StreamLocks } from "../../../application/event-sourcing/stream-locks.ts";
import type { StreamStateCache } from "../../../application/event-sourcing/stream-state-cache.ts";
import type { JobWakeups } from "../../../application/jobs/job-wakeups.ts";
import type { ServiceSettings } from "../../../application/settings.ts";
import type { WebhookSettings } from "../../../application/webhooks/webhook-settings.ts";
import type { AddressRanges } from "../../../ports/address-ranges.ts";
import type { ChainCrypto } from "../../../ports/chain-crypto.ts";
import type { Clock } from "../../../ports/clock.ts";
import type { DocumentReader } from "../../../ports/engines/document-reader.ts";
import type { ImageEngine } from "../../../ports/engines/image-engine.ts";
import type { ImageInspector } from "../../../ports/engines/image-inspector.ts";
import type { OcrEngine } from "../../../ports/engines/ocr-engine.ts";
import type { PdfJoiner } from "../../../ports/engines/pdf-joiner.ts";
import type { TemplateFonts } from "../../../ports/engines/template-fonts.ts";
import type { TryOnEngine } from "../../../ports/engines/tryon-engine.ts";
import type { EventStore } from "../../../ports/event-store.ts";
import type { Ids } from "../../../ports/ids.ts";
import type { NoteSigner } from "../../../ports/note-signer.ts";
import type { PasswordHasher } from "../../../ports/password-hasher.ts";
import type { JobProjection, KeyProjection, UsageProjection } from "../../../ports/projections.ts";
import type { RateLimiter } from "../../../ports/rate-limiter.ts";
import type { ReceiptLog } from "../../../ports/receipt-log.ts";
import type { ResultStore } from "../../../ports/result-store.ts";
import type { SecretHasher } from "../../../ports/secret-hasher.ts";
import type { WebhookCrypto } from "../../../ports/webhook-crypto.ts";
import type { WebhookIndex } from "../../../ports/webhook-index.ts";
import type { WebhookTransport } from "../../../ports/webhook-transport.ts";

/** Every service the HTTP adapter's use cases need; the composition root provides them all. */
export type AppServices =
  | TemplateFonts
  | JobWakeups
  | EventStore
  | Clock
  | Ids
  | SecretHasher
  | AddressRanges
  | RateLimiter
  | KeyDirectory
  | ServiceSettings
  | StreamStateCache
  | StreamLocks
  | ImageInspector
  | ChainCrypto
  | DocumentReader
  | ImageEngine
  | ResultStore
  | TryOnEngine
  | OcrEngine
  | PdfJoiner
  | UsageProjection
  | KeyProjection
  | JobProjection
  | PasswordHasher
  | ReceiptLog
  | NoteSigner
  | WebhookSettings
  | WebhookCrypto
  | WebhookTransport
  | WebhookIndex;
