/**
 * The public keys links are checked with (see links.ts). Every forge process makes an Ed25519 key
 * pair at start and keeps it in memory only: its hand-offs and downloads do not outlive it, so
 * neither need its links. A lone server knows its own key only; a cluster's node also keeps the
 * key each other node published (see main/cluster/links.ts), and a link naming a node whose key
 * it has not seen opens nothing.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { LinkVerifier } from './links.js';

/** Longest published key read, characters: an Ed25519 SPKI in base64url is 59; anything far longer is not one. */
const PUBLISHED_KEY_MAX_CHARS = 256;

/** This process's key pair: the private key signs its links and stays in the main thread. */
export function linkKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

/** A public key as nodes publish it: SPKI DER, base64url. */
export function publishedKey(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).toString('base64url');
}

/** The Ed25519 public key in a published value; undefined when the value is not one. */
export function readPublishedKey(value: string): KeyObject | undefined {
  if (value.length > PUBLISHED_KEY_MAX_CHARS) return undefined;
  try {
    const key = createPublicKey({ key: Buffer.from(value, 'base64url'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

export class LinkKeys implements LinkVerifier {
  private readonly peers = new Map<string, KeyObject>();
  /** This process's public key as it publishes it. */
  readonly ownPublished: string;

  /** `node`: this process's name on a cluster; a link naming it is checked with `own` whatever the bucket says. */
  constructor(private readonly own: KeyObject, readonly node?: string) {
    this.ownPublished = publishedKey(own);
  }

  keyOf(node: string | undefined): KeyObject | undefined {
    return node === undefined || node === this.node ? this.own : this.peers.get(node);
  }

  /** Node `node` published `value` (undefined: took its key back); false when the value is not a key, which leaves the node with none. */
  learn(node: string, value: string | undefined): boolean {
    if (node === this.node) return true;
    const key = value === undefined ? undefined : readPublishedKey(value);
    if (key) this.peers.set(node, key);
    else this.peers.delete(node);
    return value === undefined || key !== undefined;
  }
}
