import type { KeyDirectory } from "../../application/key-directory.ts";
import type { ServiceSettings } from "../../application/settings.ts";
import type { StreamLocks } from "../../application/stream-locks.ts";
import type { StreamStateCache } from "../../application/stream-state-cache.ts";
import type { Clock } from "../../ports/clock.ts";
import type { DocumentReader } from "../../ports/document-reader.ts";
import type { EventStore } from "../../ports/event-store.ts";
import type { Ids } from "../../ports/ids.ts";
import type { ImageEngine } from "../../ports/image-engine.ts";
import type { ImageInspector } from "../../ports/image-inspector.ts";
import type { LedgerCrypto } from "../../ports/ledger-crypto.ts";
import type { NoteSigner } from "../../ports/note-signer.ts";
import type { OcrEngine } from "../../ports/ocr-engine.ts";
import type { PasswordHasher } from "../../ports/password-hasher.ts";
import type { PdfJoiner } from "../../ports/pdf-joiner.ts";
import type { KeyProjection, UsageProjection } from "../../ports/projections.ts";
import type { RateLimiter } from "../../ports/rate-limiter.ts";
import type { ReceiptLog } from "../../ports/receipt-log.ts";
import type { ResultStore } from "../../ports/result-store.ts";
import type { SecretHasher } from "../../ports/secret-hasher.ts";
import type { TryOnEngine } from "../../ports/tryon-engine.ts";

/** Every service the HTTP adapter's use cases need; the composition root provides them all. */
export type AppServices =
  | EventStore
  | Clock
  | Ids
  | SecretHasher
  | RateLimiter
  | KeyDirectory
  | ServiceSettings
  | StreamStateCache
  | StreamLocks
  | ImageInspector
  | LedgerCrypto
  | DocumentReader
  | ImageEngine
  | ResultStore
  | TryOnEngine
  | OcrEngine
  | PdfJoiner
  | UsageProjection
  | KeyProjection
  | PasswordHasher
  | ReceiptLog
  | NoteSigner;
