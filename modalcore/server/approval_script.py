"""The approval frame's and its popup's scripts (approval.py serves them; frame_page.py's key
script and approval_guard.py's visibility guard are put in by the page)."""

APPROVAL_SCRIPT = """
const S = %(data)s;
const state = document.getElementById('state'), approveButton = document.getElementById('approve');
const verify = document.getElementById('verify');
%(guard)s
%(tree)s
let key = null, challenge = null, approvalPopup = null, shown = '', simulationTries = 0;
async function ready() {
  if (!guard.here) return;
  if (!key) {  // kept across the simulation's retries
    try { key = await deviceKey('look'); } catch (e) {
      // no storage for this frame and no key window open: said, with the press that opens it
      if (e instanceof KeyBlocked) { offerKeyWindow(ready); return; }
      throw e;
    }
  }
  const r = await post(S.path + '/begin', {session: S.session, request: S.request, public_key: key.spki});
  if (!r.ok) { state.textContent = 'This request is no longer waiting'; return; }
  // what is approved is drawn from the tree's bytes, and what the key signs is their hash
  try { shown = await drawTree(r.data.tree); } catch (e) { state.textContent = 'This approval could not be shown'; return; }
  // issue 43: the engine simulates for at most 1.5 s; the frame asks again until the outcome is in
  if (outcomePending && simulationTries++ < 16) { setTimeout(() => ready().catch(() => {}), 250); return; }
  challenge = r.data;
  const passkey = challenge.passkeys.length > 0;  // issue 43 §3: the account's passkey approves
  verify.hidden = challenge.registered || passkey;
  guard.registered = challenge.registered || passkey; guard.restart();
  if (!verify.hidden) showVerify(challenge);
}
async function decide(approve, how) {
  if (!challenge || (approve && !guard.ok())) return;
  const seen = guard.evidence(how);
  guard.deciding = true; guard.refresh();
  for (const b of document.querySelectorAll('.row button')) b.disabled = true;
  state.textContent = approve ? 'Approving…' : 'Rejecting…';
  try {
    const text = ['modalcore-approve', S.session, S.request, challenge.digest, challenge.nonce,
                  approve ? 'approve' : 'reject', seen, shown].join('\\n');
    const body = {session: S.session, request: S.request, approve, nonce: challenge.nonce, seen, tree_hash: shown,
                  public_key: key.spki, signature: ''};
    if (approve && challenge.passkeys.length) body.passkey = await passkeyGet(
      new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))), challenge.passkeys);
    else body.signature = await signText(key.pair, text);
    const r = await post(S.path, body);
    state.textContent = r.ok ? (approve ? 'Approved' : 'Rejected') : 'This request is no longer waiting';
  } catch (e) { state.textContent = 'Could not reach the wallet'; }
}
// without IntersectionObserver v2 the visitor approves in a popup of the engine's origin, which
// the host page cannot cover; only that popup's answer counts (approval_guard.py)
function approveInPopup() {
  approvalPopup = open(S.path + '?' + new URLSearchParams({session: S.session, request: S.request, popup: '1'}),
               'modalcore-approve', 'popup,width=420,height=640');
  state.textContent = approvalPopup ? 'Approve in the window that opened' : 'Allow this site to open a window to approve';
}
addEventListener('message', (e) => {
  const d = e.data;
  if (!approvalPopup || e.source !== approvalPopup || e.origin !== location.origin || typeof d !== 'object' || d === null
      || d.modalcore !== 'approve-popup' || d.request !== S.request || typeof d.approve !== 'boolean') return;
  approvalPopup = null;
  // the popup drew the tree too: an Approve there counts for the tree drawn here only
  if (d.approve && d.tree_hash !== shown) { state.textContent = 'The window showed another request'; return; }
  decide(d.approve, 'popup');
});
approveButton.addEventListener('click', (e) => {
  if (!e.isTrusted) return;
  if (guard.ioV2) decide(true, 'visible'); else approveInPopup();
});
document.getElementById('reject').addEventListener('click', (e) => { if (e.isTrusted) decide(false, 'visible'); });
%(verify)s
ready().catch(() => { state.textContent = 'This browser cannot hold a wallet key'; });
"""

# the popup's page (a top-level window of the engine's origin, framed by nobody): its Approve and
# Reject answer the frame that opened it, which signs
POPUP_SCRIPT = """
const S = %(data)s;
const state = document.getElementById('state'), approveButton = document.getElementById('approve');
%(guard)s
%(tree)s
let shown = '';
drawTree(S.tree).then((h) => { shown = h; guard.registered = true; guard.refresh(); });
function answer(approve, e) {
  if (!e.isTrusted || (approve && (!guard.ok() || !shown))) return;
  if (!opener) { state.textContent = 'This window was not opened by the approval'; return; }
  opener.postMessage({modalcore: 'approve-popup', request: S.request, approve, tree_hash: shown}, location.origin);
  for (const b of document.querySelectorAll('.row button')) b.disabled = true;
  state.textContent = approve ? 'Approved' : 'Rejected';
  setTimeout(() => close(), 300);
}
approveButton.addEventListener('click', (e) => answer(true, e));
document.getElementById('reject').addEventListener('click', (e) => answer(false, e));
"""
