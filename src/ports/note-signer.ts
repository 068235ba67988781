import { Context } from "effect";

/**
 * The key that signs the receipts log (C2SP signed-note, Ed25519): checkpoints as notes, receipts
 * as raw signatures over their canonical bytes. Every instance derives the same key, so a customer
 * checks any instance's signature with the one published verifier key.
 */
export interface NoteSignerShape {
  /** The signer's name: the log's origin line, stable for the deployment. */
  readonly name: string;
  /** The signed-note key id (4 bytes), lower-case hex. */
  readonly keyId: string;
  /** The signed-note verifier key line: `<name>+<key id hex>+<base64(0x01 ‖ public key)>`. */
  readonly verifierKey: string;
  /** The verifier keys of earlier generations, newest first: what older receipts and checkpoints were signed with. */
  readonly earlierVerifierKeys: ReadonlyArray<string>;
  /** The note `text` (ending in a newline) with its signature line under a blank line. */
  readonly signNote: (text: string) => string;
  /** The raw 64-byte Ed25519 signature of `data`, base64. */
  readonly sign: (data: Uint8Array) => string;
}

export class NoteSigner extends Context.Service<NoteSigner, NoteSignerShape>()("NoteSigner") {}
