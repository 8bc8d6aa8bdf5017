// A real WalletConnect v2 wallet for tests and the demo: the official @walletconnect/sign-client
// (pinned) acting as the wallet, signing with ethers over a Hardhat dev account and broadcasting
// to the Hardhat node.
//
//   node wallet.mjs --relay ws://127.0.0.1:PORT --key 0x... --chain 31337=http://127.0.0.1:8545 \
//        [--chain 31338=...] [--policy approve|reject|ask] [--delete-after N] [--uri wc:...] [--http PORT]
//        [--no-auth] [--auth-tamper none|forge|wrong_nonce|expired|malformed]
//
// One-click sign-in: the wallet listens for `session_authenticate` (wc_sessionAuthenticate) and,
// by the same policy, approves it (one CACAO per supported chain, each an EIP-191 signature by
// ethers over the SDK's `formatAuthMessage`, sent by `approveSessionAuthenticate`) or rejects it
// (`rejectSessionAuthenticate`). `--no-auth` does not listen, so the SDK answers the fallback
// proposal instead, as a wallet without one-click auth does. `--auth-tamper` (tests only) answers
// with a CACAO the dApp must refuse: signed by another key (`forge`), for another nonce, already
// expired, or a malformed result; `forge` and `malformed` go out through the SDK's own
// `sendResult` (its `approveSessionAuthenticate` refuses to send a CACAO it cannot verify).
//
// `--policy ask` holds each proposal and request until {"cmd":"answer","id":N,"approve":true|false}.
// `--http PORT` also serves the demo wallet page (page.mjs) on 127.0.0.1:PORT: a person pastes a
// pairing link, sees the proposal and the requests, and presses Approve or Reject.
//
// Commands arrive as JSON lines on stdin: {"cmd":"pair","uri":"wc:..."}, {"cmd":"policy","value":
// "approve"|"reject"}, {"cmd":"delete"}, {"cmd":"event","name":"chainChanged","data":..,"chainId":..},
// {"cmd":"update"}, {"cmd":"extend"}, {"cmd":"ping"}, {"cmd":"quit"}. Events go out as JSON lines on
// stdout, each with an "event" key (ready, proposal, approved, rejected, request, responded,
// deleted, session_delete, error, ...). The SDK's own logging is silenced.
import { SignClient } from "@walletconnect/sign-client";
import { buildAuthObject, hashKey, populateAuthPayload, TYPE_1 } from "@walletconnect/utils";
import { Wallet, JsonRpcProvider, getBytes, isHexString, toUtf8Bytes } from "ethers";
import { createInterface } from "node:readline";
import { servePage } from "./page.mjs";

function parseArgs(argv) {
  const args = { chains: {}, policy: "approve", deleteAfter: 0 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = argv[i + 1];
    if (name === "--relay") args.relay = value;
    else if (name === "--key") args.key = value;
    else if (name === "--chain") {
      const [id, url] = value.split("=");
      args.chains[Number(id)] = url;
    } else if (name === "--policy") args.policy = value;
    else if (name === "--delete-after") args.deleteAfter = Number(value);
    else if (name === "--uri") args.uri = value;
    else if (name === "--http") args.http = Number(value);
    else if (name === "--no-auth") { args.noAuth = true; continue; }
    else if (name === "--auth-tamper") args.authTamper = value;
    else continue;
    i++;
  }
  if (!args.relay || !args.key || Object.keys(args.chains).length === 0) {
    throw new Error("usage: wallet.mjs --relay URL --key 0xKEY --chain ID=RPC [--policy approve|reject]");
  }
  return args;
}

// The SDK's storage, in memory: nothing written to disk.
class MemoryStorage {
  constructor() { this.map = new Map(); }
  async getKeys() { return [...this.map.keys()]; }
  async getEntries() { return [...this.map.entries()]; }
  async getItem(key) { return this.map.get(key); }
  async setItem(key, value) { this.map.set(key, value); }
  async removeItem(key) { this.map.delete(key); }
}

const LOG_LIMIT = 200; // events the demo page can read back
const log = [];
const emit = (event, fields = {}) => {
  log.push({ event, ...fields });
  if (log.length > LOG_LIMIT) log.shift();
  process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
};

// `--policy ask`: what waits for a person's answer, by JSON-RPC id
const pending = new Map();
const decide = (id, kind, detail) => policy !== "ask" ? Promise.resolve(policy !== "reject")
  : new Promise((resolve) => { pending.set(id, { id, kind, ...detail, resolve }); emit("asking", { id, kind }); });

const args = parseArgs(process.argv.slice(2));
const signers = Object.fromEntries(
  Object.entries(args.chains).map(([id, url]) => [id, new Wallet(args.key, new JsonRpcProvider(url, Number(id), { staticNetwork: true }))]),
);
const address = Object.values(signers)[0].address;
const supported = Object.keys(args.chains).map((id) => `eip155:${id}`);
let policy = args.policy;
let handled = 0;
let currentTopic = null;
let currentChain = supported[0];

const client = await SignClient.init({
  projectId: "modalcore-local",
  relayUrl: args.relay,
  telemetryEnabled: false,
  logger: "silent",
  storage: new MemoryStorage(),
  metadata: {
    name: "Modalcore Test Wallet",
    description: "The official WalletConnect sign-client over Hardhat dev accounts",
    url: "https://wallet.modalcore.invalid",
    icons: ["https://wallet.modalcore.invalid/icon.png"],
  },
});

function approvedNamespaces(proposal) {
  const wanted = [proposal.requiredNamespaces?.eip155, proposal.optionalNamespaces?.eip155].filter(Boolean);
  const chains = [...new Set(wanted.flatMap((ns) => ns.chains ?? []))].filter((c) => supported.includes(c));
  const methods = [...new Set(wanted.flatMap((ns) => ns.methods ?? []))];
  const events = [...new Set(wanted.flatMap((ns) => ns.events ?? []))];
  return { eip155: { chains, methods, events, accounts: chains.map((c) => `${c}:${address}`) } };
}

client.on("session_proposal", async ({ id, params }) => {
  emit("proposal", { id, proposer: params.proposer.metadata.name, optionalNamespaces: params.optionalNamespaces,
    requiredNamespaces: params.requiredNamespaces, pairingTopic: params.pairingTopic });
  try {
    if (!(await decide(id, "proposal", { proposer: params.proposer.metadata.name, url: params.proposer.metadata.url }))) {
      await client.reject({ id, reason: { code: 5000, message: "User rejected." } });
      emit("rejected", { id });
      return;
    }
    const namespaces = approvedNamespaces(params);
    if (namespaces.eip155.chains.length === 0) {
      await client.reject({ id, reason: { code: 5100, message: "Unsupported chains." } });
      emit("rejected", { id, unsupported: true });
      return;
    }
    const { topic, acknowledged } = await client.approve({ id, namespaces });
    currentTopic = topic;
    emit("approved", { id, topic, accounts: namespaces.eip155.accounts });
    await acknowledged();
    emit("acknowledged", { topic });
  } catch (error) {
    emit("error", { where: "proposal", message: String(error?.message ?? error) });
  }
});

async function answer(method, params, chainId) {
  const signer = signers[chainId.split(":")[1]];
  if (!signer) throw Object.assign(new Error(`Unsupported chain ${chainId}`), { code: 5100 });
  if (method === "personal_sign") {
    const [data] = params;
    return signer.signMessage(isHexString(data) ? getBytes(data) : toUtf8Bytes(data));
  }
  if (method === "eth_signTypedData_v4") {
    const typed = typeof params[1] === "string" ? JSON.parse(params[1]) : params[1];
    const types = { ...typed.types };
    delete types.EIP712Domain;
    return signer.signTypedData(typed.domain, types, typed.message);
  }
  if (method === "eth_sendTransaction") {
    const [tx] = params;
    const sent = await signer.sendTransaction({ to: tx.to, value: tx.value ?? 0, data: tx.data ?? "0x",
      ...(tx.gas ? { gasLimit: tx.gas } : {}) });
    return sent.hash;
  }
  if (method === "wallet_switchEthereumChain") {
    const target = `eip155:${Number(params[0].chainId)}`;
    if (!supported.includes(target)) throw Object.assign(new Error("Unrecognized chain"), { code: 4902 });
    currentChain = target;
    return null;
  }
  throw Object.assign(new Error(`Unsupported method ${method}`), { code: 4200 });
}

client.on("session_request", async ({ topic, id, params }) => {
  const { request, chainId } = params;
  emit("request", { id, topic, method: request.method, chainId });
  let response;
  try {
    if (!(await decide(id, "request", { method: request.method, chainId, params: request.params }))) {
      throw Object.assign(new Error("User rejected the request."), { code: 4001 });
    }
    const result = await answer(request.method, request.params, chainId);
    response = { id, jsonrpc: "2.0", result };
    emit("responded", { id, method: request.method, result });
  } catch (error) {
    response = { id, jsonrpc: "2.0", error: { code: error.code ?? 5000, message: String(error.message) } };
    emit("responded", { id, method: request.method, error: response.error });
  }
  await client.respond({ topic, response });
  if (request.method === "wallet_switchEthereumChain" && !response.error) {
    await client.emit({ topic, event: { name: "chainChanged", data: Number(currentChain.split(":")[1]) }, chainId: currentChain });
  }
  handled++;
  if (args.deleteAfter && handled >= args.deleteAfter) {
    await client.disconnect({ topic, reason: { code: 6000, message: "User disconnected." } });
    emit("deleted", { topic });
  }
});

const AUTH_METHODS = ["eth_sendTransaction", "personal_sign", "eth_signTypedData_v4", "wallet_switchEthereumChain",
  "wallet_addEthereumChain"];
let authTamper = args.authTamper ?? "none";

// One CACAO per chain the wallet supports among those requested (the SDK's populateAuthPayload
// narrows chains and the recap, and writes the recap statement).
async function signCacaos(authPayload) {
  const payload = populateAuthPayload({ authPayload, chains: supported, methods: AUTH_METHODS });
  const auths = [];
  for (const chain of payload.chains) {
    let request = payload;
    if (authTamper === "wrong_nonce") request = { ...payload, nonce: payload.nonce + "0000" };
    if (authTamper === "expired") request = { ...payload, exp: new Date(Date.now() - 60_000).toISOString() };
    const iss = `did:pkh:${chain}:${address}`;
    const message = client.formatAuthMessage({ request, iss });
    const signer = authTamper === "forge" ? Wallet.createRandom() : signers[chain.split(":")[1]];
    auths.push(buildAuthObject(request, { t: "eip191", s: await signer.signMessage(message) }, iss));
  }
  return auths;
}

async function onAuthenticate({ id, topic, params }) {
  const { authPayload, requester } = params;
  emit("authenticate", { id, topic, domain: authPayload.domain, aud: authPayload.aud, nonce: authPayload.nonce,
    chains: authPayload.chains, type: authPayload.type, requester: requester.metadata.name });
  try {
    if (!(await decide(id, "authenticate", { proposer: requester.metadata.name, url: requester.metadata.url,
      domain: authPayload.domain }))) {
      await client.rejectSessionAuthenticate({ id, reason: { code: 5000, message: "User rejected." } });
      emit("auth_rejected", { id });
      return;
    }
    const auths = await signCacaos(authPayload);
    if (authTamper === "forge" || authTamper === "malformed") {
      const receiverPublicKey = requester.publicKey;
      const senderPublicKey = await client.core.crypto.generateKeyPair();
      const responder = { publicKey: senderPublicKey, metadata: client.metadata };
      const result = authTamper === "forge" ? { cacaos: auths, responder } : { cacaos: "none", responder };
      await client.engine.sendResult({ id, topic: hashKey(receiverPublicKey), result, throwOnFailedPublish: true,
        encodeOpts: { type: TYPE_1, receiverPublicKey, senderPublicKey } });
      emit("auth_sent", { id, tamper: authTamper });
      return;
    }
    const { session } = await client.approveSessionAuthenticate({ id, auths });
    if (session) currentTopic = session.topic;
    emit("auth_approved", { id, topic: session?.topic, accounts: session?.namespaces?.eip155?.accounts ?? [],
      cacaos: auths.length, tamper: authTamper });
  } catch (error) {
    emit("error", { where: "authenticate", message: String(error?.message ?? error) });
  }
}

if (!args.noAuth) client.on("session_authenticate", onAuthenticate);

client.on("session_delete", ({ topic }) => emit("session_delete", { topic }));
client.on("session_ping", ({ topic }) => emit("session_ping", { topic }));
client.on("session_extend", ({ topic }) => emit("session_extend", { topic }));

async function command(line) {
  let cmd;
  try { cmd = JSON.parse(line); } catch { emit("error", { where: "stdin", message: "not JSON" }); return; }
  try {
    if (cmd.cmd === "pair") { await client.pair({ uri: cmd.uri }); emit("paired", {}); }
    else if (cmd.cmd === "policy") { policy = cmd.value; emit("policy", { value: policy }); }
    else if (cmd.cmd === "auth_tamper") { authTamper = cmd.value; emit("auth_tamper", { value: authTamper }); }
    else if (cmd.cmd === "delete") {
      const topic = cmd.topic ?? currentTopic;
      await client.disconnect({ topic, reason: { code: 6000, message: "User disconnected." } });
      emit("deleted", { topic });
    } else if (cmd.cmd === "event") {
      await client.emit({ topic: cmd.topic ?? currentTopic, event: { name: cmd.name, data: cmd.data }, chainId: cmd.chainId ?? currentChain });
      emit("emitted", { name: cmd.name });
    } else if (cmd.cmd === "update") {
      const topic = cmd.topic ?? currentTopic;
      const session = client.session.get(topic);
      const { acknowledged } = await client.update({ topic, namespaces: cmd.namespaces ?? session.namespaces });
      await acknowledged();
      emit("updated", { topic });
    } else if (cmd.cmd === "extend") {
      const { acknowledged } = await client.extend({ topic: cmd.topic ?? currentTopic });
      await acknowledged();
      emit("extended", {});
    } else if (cmd.cmd === "ping") { await client.ping({ topic: cmd.topic ?? currentTopic }); emit("pong", {}); }
    else if (cmd.cmd === "answer") {
      const asked = pending.get(cmd.id);
      if (!asked) { emit("error", { where: "answer", message: `nothing asked with id ${cmd.id}` }); return; }
      pending.delete(cmd.id);
      asked.resolve(cmd.approve === true);
      emit("answered", { id: cmd.id, approve: cmd.approve === true });
    } else if (cmd.cmd === "quit") { emit("bye", {}); process.exit(0); }
    else emit("error", { where: "stdin", message: `unknown command ${cmd.cmd}` });
  } catch (error) {
    emit("error", { where: cmd.cmd, message: String(error?.message ?? error) });
  }
}

const page = args.http !== undefined
  ? await servePage(args.http, { command, log, address,
    pending: () => [...pending.values()].map(({ resolve, ...rest }) => rest),
    sessions: () => client.session.getAll().map((s) => ({ topic: s.topic, peer: s.peer.metadata.name, url: s.peer.metadata.url })) })
  : null;
emit("ready", { address, chains: supported, auth: !args.noAuth, clientId: await client.core.crypto.getClientId(),
  ...(page ? { page: page.url } : {}) });
if (args.uri) await command(JSON.stringify({ cmd: "pair", uri: args.uri }));
createInterface({ input: process.stdin }).on("line", (line) => { if (line.trim()) command(line); });
