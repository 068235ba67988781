import type { JsonObject } from "../../ports/event-store.ts";
import { canonicalJson } from "../event-sourcing/event-checksum.ts";

/**
 * The per-stream hash chain. Each event's metadata holds `chain: { revision, prev, mac }`, where
 * `mac` is an HMAC (key derived from SERVER_SECRET) over the stream name, the revision, the event's
 * id, type, data and other metadata, and `prev`: the mac of the stream's previous event. Editing,
 * removing, adding or moving an event breaks the chain, and without the key no one can re-chain.
 * Chains are per stream, so appends to different streams never wait for each other.
 */
export const CHAIN_METADATA_KEY = "chain";

/** `prev` of a stream's first chained event: there is no predecessor, or it was written before chaining. */
export const GENESIS = "";

export interface ChainLink {
  /** The revision the event was written at: a moved event no longer sits there. */
  readonly revision: number;
  readonly prev: string;
  readonly mac: string;
}

export interface ChainedContent {
  readonly eventId: string;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
}

/** The event's chain link, or undefined for an event written before chaining (or stripped of it). */
export const chainLinkOf = (metadata: JsonObject): ChainLink | undefined => {
  const link = metadata[CHAIN_METADATA_KEY];
  if (typeof link !== "object" || link === null || Array.isArray(link)) return undefined;
  const { revision, prev, mac } = link as JsonObject;
  return typeof revision === "number" && typeof prev === "string" && typeof mac === "string" ? { revision, prev, mac } : undefined;
};

const withoutLink = (metadata: JsonObject): JsonObject => {
  if (!(CHAIN_METADATA_KEY in metadata)) return metadata;
  const { [CHAIN_METADATA_KEY]: _link, ...rest } = metadata;
  return rest;
};

/** What the mac covers; positions and recording times belong to the store holding the event, so a copy keeps the mac. */
export const chainText = (streamName: string, revision: number, event: ChainedContent, prev: string): string =>
  canonicalJson(["its-event-chain/v1", streamName, revision, event.eventId, event.type, event.data, withoutLink(event.metadata), prev]);

/** Whether the event's own link is genuine: made with the key, over exactly this content, revision and predecessor. */
export const linkIsGenuine = (mac: (text: string) => string, streamName: string, event: ChainedContent, link: ChainLink): boolean =>
  mac(chainText(streamName, link.revision, event, link.prev)) === link.mac;
