// Writes crypto vectors computed by the official @walletconnect/utils (the SDK's own code) for
// the Python tests: key agreement, topic, type 0 and type 1 envelopes with fixed keys and IVs.
//   node vectors.mjs > ../tests/walletconnect/sdk_vectors.json
import * as utils from "@walletconnect/utils";
import { x25519 } from "@noble/curves/ed25519";

const hex = (bytes) => Buffer.from(bytes).toString("hex");
const selfPrivate = "1fb63fca5c6ac731246f2f069d3bc2454345d5208254aa8ea7bffc6d110c8862";
const peerPrivate = "a8b7c6d5e4f30211223344556677889900aabbccddeeff102030405060708090";
const selfPublic = hex(x25519.getPublicKey(Buffer.from(selfPrivate, "hex")));
const peerPublic = hex(x25519.getPublicKey(Buffer.from(peerPrivate, "hex")));
const symKey = utils.deriveSymKey(selfPrivate, peerPublic);
const iv = "0102030405060708090a0b0c";
const message = JSON.stringify({ id: 1700000000000123, jsonrpc: "2.0", method: "wc_sessionPing", params: {} });
const vectors = {
  generator: "@walletconnect/utils 2.25.0 (walletpeer/vectors.mjs)",
  selfPrivate, selfPublic, peerPrivate, peerPublic,
  symKey,
  symKeyFromPeer: utils.deriveSymKey(peerPrivate, selfPublic),
  topic: utils.hashKey(symKey),
  iv,
  message,
  type0: utils.encrypt({ symKey, message, iv }),
  type1: utils.encrypt({ symKey, message, iv, type: 1, senderPublicKey: selfPublic }),
};
process.stdout.write(JSON.stringify(vectors, null, 2) + "\n");
