"""The approval frame's drawing of the approval tree (embedded/approval_tree.py), shared by the
frame and its popup (approval.py)."""

# the simulated outcome's box (issue 43): changes in and out, the fee, warnings in a plain colour
OUTCOME_CSS = (
    "#outcome{border:1px solid var(--line);border-radius:calc(var(--rm) * 3);padding:8px 10px;margin:0 0 10px;"
    "background:var(--soft)} #outcome .note{margin:0;color:var(--fg-2);font-size:calc(var(--fm) * 1.2)}"
    "#outcome ul{list-style:none;margin:4px 0;padding:0;font-weight:600} #outcome li{overflow-wrap:anywhere}"
    "#outcome li.in{color:#2a9d5c} #outcome li.out{color:#d04848} #outcome .fee{margin:4px 0 0;color:var(--fg-2)}"
    "#outcome .warn{margin:6px 0 0;color:#d04848;font-weight:600}"
)

# Draws the approval tree (embedded/approval_tree.py) from its canonical msgpack bytes, base64url,
# into the page's heading, who line and rows, and answers the SHA-256 (hex) of those bytes. The
# decoder reads what the tree holds: maps, lists, text, integers, nil.
TREE_SCRIPT = """
function unb64(t) { const s = atob(t.replace(/-/g, '+').replace(/_/g, '/')); return Uint8Array.from(s, (c) => c.charCodeAt(0)); }
function unpack(b) {
  let i = 0;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength), td = new TextDecoder('utf-8', {fatal: true});
  const str = (n) => { const s = td.decode(b.subarray(i, i + n)); i += n; return s; };
  const arr = (n) => { const a = []; for (let k = 0; k < n; k++) a.push(val()); return a; };
  const map = (n) => { const m = {}; for (let k = 0; k < n; k++) { const key = val(); m[key] = val(); } return m; };
  const u = (n) => { const v = n === 1 ? dv.getUint8(i) : n === 2 ? dv.getUint16(i) : dv.getUint32(i); i += n; return v; };
  const s = (n) => { const v = n === 1 ? dv.getInt8(i) : n === 2 ? dv.getInt16(i) : dv.getInt32(i); i += n; return v; };
  function val() {
    const c = b[i++];
    if (c === undefined) throw new Error('short');
    if (c < 0x80) return c;
    if (c >= 0xe0) return c - 0x100;
    if ((c & 0xf0) === 0x80) return map(c & 0x0f);
    if ((c & 0xf0) === 0x90) return arr(c & 0x0f);
    if ((c & 0xe0) === 0xa0) return str(c & 0x1f);
    switch (c) {
      case 0xc0: return null; case 0xc2: return false; case 0xc3: return true;
      case 0xcc: return u(1); case 0xcd: return u(2); case 0xce: return u(4);
      case 0xd0: return s(1); case 0xd1: return s(2); case 0xd2: return s(4);
      case 0xd9: return str(u(1)); case 0xda: return str(u(2)); case 0xdb: return str(u(4));
      case 0xdc: return arr(u(2)); case 0xdd: return arr(u(4)); case 0xde: return map(u(2)); case 0xdf: return map(u(4));
    }
    throw new Error('not a tree');
  }
  const v = val();
  if (i !== b.length) throw new Error('extra bytes');
  return v;
}
// issue 43: the simulated outcome (balance changes, fee, warnings) above the decoded rows;
// `outcomePending` while the engine still simulates (the frame asks again, Approve stays off)
let outcomePending = false;
function drawOutcome(o) {
  const box = document.getElementById('outcome');
  outcomePending = !!o && o.status === 'pending';
  box.replaceChildren(); box.hidden = !o; box.dataset.status = o ? o.status : '';
  if (!o) return;
  const add = (tag, cls, text) => { const e = document.createElement(tag); e.className = cls; e.textContent = text; box.append(e); return e; };
  add('p', 'note', o.note);
  const list = document.createElement('ul');
  for (const c of o.changes) { const li = document.createElement('li'); li.textContent = c;
    li.className = c.startsWith('+') ? 'in' : c.startsWith('\u2212') ? 'out' : ''; list.append(li); }
  if (o.more) { const li = document.createElement('li'); li.textContent = '+' + o.more + ' more'; list.append(li); }
  if (list.children.length) box.append(list);
  // an estimate ("\u2248 0.00004 ETH") is the network fee; otherwise its text says it is unavailable
  if (o.fee) add('p', 'fee', o.fee.startsWith('\u2248') ? 'Network fee ' + o.fee : o.fee);
  for (const w of o.warnings) add('p', 'warn', '\u26a0 ' + w).setAttribute('role', 'alert');
}
async function drawTree(text) {
  const bytes = unb64(text), tree = unpack(bytes);
  const main = document.querySelector('main'), list = document.createElement('dl');
  for (const n of tree.nodes) {
    if (n.t === 'heading') main.querySelector('h1').textContent = n.text;
    else if (n.t === 'who') document.getElementById('who').textContent = n.text + ' · ' + n.origin;
    else if (n.t === 'row') { const dt = document.createElement('dt'), dd = document.createElement('dd');
      dt.textContent = n.label; dd.textContent = n.text; list.append(dt, dd); }
  }
  main.querySelector('dl').replaceWith(list);
  drawOutcome(tree.outcome);
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(h, (x) => x.toString(16).padStart(2, '0')).join('');
}
"""
