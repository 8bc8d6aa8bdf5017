// The demo wallet page: the official sign-client wallet (wallet.mjs) offered to a person. They
// paste a pairing link, see each proposal, one-click sign-in request (wc_sessionAuthenticate:
// connect and sign in with one approval) and request, and press Approve or Reject; each connected
// dApp is listed with Disconnect, which deletes that session from the wallet's side.
//
// GET /        the page (no external assets)
// GET /state   {address, pending: [{id, kind, proposer?, domain?, method?, chainId?}],
//              sessions: [{topic, peer, url}], log: [...last events]}
// POST /command {"cmd":"pair","uri":"wc:..."}, {"cmd":"answer","id":N,"approve":bool} or
//              {"cmd":"delete","topic":"..."} (one of the listed sessions); other commands are
//              refused (400), bodies over BODY_LIMIT too (413).
import { createServer } from "node:http";

const BODY_LIMIT = 16 * 1024;
const PAGE_COMMANDS = new Set(["pair", "answer", "delete"]);

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Modalcore Test Wallet</title>
<link rel="icon" href="data:,">
<style>
body{font:15px system-ui,sans-serif;max-width:640px;margin:32px auto;padding:0 16px;color:#222}
textarea{width:100%;height:80px;font:13px monospace}
.ask{border:1px solid #ccc;border-radius:8px;padding:12px;margin:8px 0}
button{font:inherit;padding:6px 14px;margin-right:8px}
#log{font:12px monospace;white-space:pre-wrap;color:#555}
</style></head><body>
<h1>Modalcore Test Wallet</h1>
<p>The official WalletConnect sign-client as a wallet over a Hardhat dev account: <code id="address"></code></p>
<label for="uri">Pairing link</label>
<textarea id="uri" placeholder="wc:..."></textarea>
<p><button id="pair">Pair</button></p>
<h2>Waiting for you</h2>
<div id="pending"><p>Nothing to approve.</p></div>
<h2>Connected</h2>
<div id="sessions"><p>No dApp connected.</p></div>
<h2>Events</h2>
<div id="log"></div>
<script>
const post = (body) => fetch("command", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
document.getElementById("pair").onclick = () => post({ cmd: "pair", uri: document.getElementById("uri").value.trim() });
let shown = "";
let listed = "";
function drawSessions(sessions) {
  const key = JSON.stringify(sessions.map((s) => s.topic));
  if (key === listed) return;
  listed = key;
  const box = document.getElementById("sessions");
  box.replaceChildren();
  if (sessions.length === 0) { const p = document.createElement("p"); p.textContent = "No dApp connected."; box.append(p); }
  for (const s of sessions) {
    const card = document.createElement("section");
    card.className = "ask";
    card.setAttribute("aria-label", "Session with " + s.peer);
    const title = document.createElement("p");
    title.textContent = s.peer + " (" + s.url + ")";
    const off = document.createElement("button"); off.textContent = "Disconnect";
    off.onclick = () => { off.disabled = true; post({ cmd: "delete", topic: s.topic }); };
    card.append(title, off);
    box.append(card);
  }
}
async function refresh() {
  const state = await (await fetch("state")).json();
  document.getElementById("address").textContent = state.address;
  document.getElementById("log").textContent = state.log.map((e) => JSON.stringify(e)).join("\\n");
  drawSessions(state.sessions);
  const key = JSON.stringify(state.pending.map((p) => p.id));
  if (key === shown) return;
  shown = key;
  const box = document.getElementById("pending");
  box.replaceChildren();
  if (state.pending.length === 0) { const p = document.createElement("p"); p.textContent = "Nothing to approve."; box.append(p); }
  for (const ask of state.pending) {
    const card = document.createElement("section");
    card.className = "ask";
    card.setAttribute("aria-label", ask.kind === "proposal" ? "Connection proposal"
      : ask.kind === "authenticate" ? "Sign-in request" : "Request " + ask.method);
    const title = document.createElement("p");
    title.textContent = ask.kind === "proposal" ? ask.proposer + " wants to connect (" + ask.url + ")"
      : ask.kind === "authenticate" ? ask.proposer + " wants you to connect and sign in (" + ask.domain + ")"
      : ask.method + " on " + ask.chainId;
    const detail = document.createElement("pre");
    detail.textContent = ask.kind === "request" ? JSON.stringify(ask.params, null, 1).slice(0, 2000) : "";
    const yes = document.createElement("button"); yes.textContent = "Approve";
    const no = document.createElement("button"); no.textContent = "Reject";
    yes.onclick = () => post({ cmd: "answer", id: ask.id, approve: true });
    no.onclick = () => post({ cmd: "answer", id: ask.id, approve: false });
    card.append(title, detail, yes, no);
    box.append(card);
  }
}
setInterval(() => refresh().catch(() => {}), 400);
refresh();
</script></body></html>`;

function send(res, status, type, body) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

export function servePage(port, { command, log, pending, sessions, address }) {
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/") return send(res, 200, "text/html; charset=utf-8", HTML);
    if (req.method === "GET" && req.url === "/state") {
      return send(res, 200, "application/json", JSON.stringify({ address, pending: pending(), sessions: sessions(), log: log.slice(-50) }));
    }
    if (req.method === "POST" && req.url === "/command") {
      let size = 0;
      const chunks = [];
      req.on("data", (chunk) => {
        size += chunk.length;
        if (size > BODY_LIMIT) { send(res, 413, "text/plain", "too large"); req.destroy(); } else chunks.push(chunk);
      });
      req.on("end", () => {
        if (size > BODY_LIMIT) return;
        let body;
        try { body = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { return send(res, 400, "text/plain", "not JSON"); }
        if (!body || !PAGE_COMMANDS.has(body.cmd)) return send(res, 400, "text/plain", "unknown command");
        // Disconnect names one of the sessions the page lists (never the bare stdin `delete`,
        // which falls back to the latest session)
        if (body.cmd === "delete" && !sessions().some((s) => s.topic === body.topic)) {
          return send(res, 400, "text/plain", "no such session");
        }
        command(JSON.stringify(body));
        send(res, 202, "application/json", "{}");
      });
      return;
    }
    send(res, 404, "text/plain", "not found");
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, server }));
  });
}
