"""The frames' passkey scripts (issue 43 §3; server/passkey.py, approval.py, verify.py): every
WebAuthn ceremony runs in a document of the engine's origin, for the engine's host as relying
party; the challenge is the engine's (or, to approve, the SHA-256 of the approval text)."""

from __future__ import annotations

PASSKEY_CSS = ("#passkey button,#passkey-signin{width:100%;margin:0 0 8px;padding:10px;border:0;"
               "border-radius:calc(var(--rm) * 3);font:inherit;background:var(--soft);color:var(--fg);cursor:pointer}"
               "#passkey p{margin:0;text-align:center}")

# helpers: base64url to bytes, a credential as the JSON the engine reads, the two ceremonies
PASSKEY_SCRIPT = """
const fromB64 = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - s.length % 4) % 4)),
  (c) => c.charCodeAt(0));
function passkeyJSON(c) {
  const r = c.response, out = {id: c.id, rawId: b64(c.rawId), type: c.type, response: {clientDataJSON: b64(r.clientDataJSON)}};
  if (r.attestationObject) out.response.attestationObject = b64(r.attestationObject);
  if (r.authenticatorData) { out.response.authenticatorData = b64(r.authenticatorData); out.response.signature = b64(r.signature); }
  if (r.userHandle) out.response.userHandle = b64(r.userHandle);
  return out;
}
async function passkeyGet(challenge, ids) {
  const c = await navigator.credentials.get({publicKey: {challenge, rpId: location.hostname, timeout: 120000,
    userVerification: 'required', allowCredentials: (ids || []).map((id) => ({type: 'public-key', id: fromB64(id)}))}});
  return passkeyJSON(c);
}
async function passkeyCreate(b) {
  const c = await navigator.credentials.create({publicKey: {challenge: fromB64(b.challenge),
    rp: {id: location.hostname, name: location.hostname},
    user: {id: fromB64(b.user_id), name: b.user_name, displayName: b.user_name},
    pubKeyCredParams: [{type: 'public-key', alg: -7}, {type: 'public-key', alg: -257}],
    authenticatorSelection: {residentKey: 'required', userVerification: 'required'}, attestation: 'none', timeout: 120000,
    excludeCredentials: b.exclude.map((id) => ({type: 'public-key', id: fromB64(id)}))}});
  return passkeyJSON(c);
}
"""

# the Account view's frame: the browser's registered key signs the new passkey's registration
ADD_SCRIPT = """
const S = %(data)s;
const add = document.getElementById('add'), state = document.getElementById('state');
add.addEventListener('click', async (e) => {
  if (!e.isTrusted) return;
  add.disabled = true; state.textContent = '';
  try {
    const key = await deviceKey('open');  // a press: where the frame has no storage, the key window
    const b = await post(S.path + '/begin', {session: S.session, purpose: 'register'});
    if (!b.ok) { state.textContent = 'A passkey cannot be added now'; return; }
    const credential = await passkeyCreate(b.data);
    const signature = await signText(key.pair, ['modalcore-passkey', S.session, credential.id, b.data.challenge].join('\\n'));
    const r = await post(S.path + '/register', {session: S.session, public_key: key.spki, signature, credential});
    state.textContent = r.ok ? 'Passkey added' : (r.status === 403 && r.data.error === 'not a browser that may approve for this account'
      ? 'Sign in again from this browser first, then add a passkey' : 'The passkey could not be added');
  } catch (err) { state.textContent = 'The passkey was not created'; }
  finally { add.disabled = false; }
});
"""

PASSKEY_BUTTON = ("<button id=passkey-signin type=button>Sign in with a passkey</button>"
                  "<p id=passkey-state role=status></p>")

# Connect's frame (server/passkey.py): the same button with no email typed; the passkey is a
# discoverable one (no allowCredentials), the engine finds the account from it
CONNECT_SIGNIN_SCRIPT = """
const S = %(data)s;
let key = null;
// one line, the button's own (the Connect card keeps every method in sight): what happened shows
// in the button for a moment; the status line stays for screen readers
const passkeyLabel = document.getElementById('passkey-signin'), passkeySaid = document.getElementById('passkey-state');
const passkeyName = passkeyLabel.textContent;
new MutationObserver(() => {
  if (!passkeySaid.textContent) return;
  passkeyLabel.textContent = passkeySaid.textContent;
  setTimeout(() => { passkeyLabel.textContent = passkeyName; passkeySaid.textContent = ''; }, 4000);
}).observe(passkeySaid, {childList: true, characterData: true, subtree: true});
"""
CONNECT_CSS = ("#passkey-signin{margin:0}#passkey-state{position:absolute;width:1px;height:1px;overflow:hidden;"
               "clip-path:inset(50%)}")

# EmailVerifyOtp's frame when the email has a passkey, and Connect's: sign in without the code
SIGNIN_PASSKEY_SCRIPT = """
const passkeyButton = document.getElementById('passkey-signin');
if (passkeyButton) passkeyButton.addEventListener('click', async (e) => {
  if (!e.isTrusted) return;
  passkeyButton.disabled = true;
  const msg = document.getElementById('passkey-state');
  try {
    // registered with the sign-in, as with a code; taken first, while the press may still open
    // the key window (a frame without storage)
    key = key || await deviceKey('open');
    const b = await post('/embedded/passkey/begin', {session: S.session, purpose: 'signin'});
    if (!b.ok) { msg.textContent = 'This sign-in is no longer waiting'; return; }
    const credential = await passkeyGet(fromB64(b.data.challenge), []);
    const signature = await signText(key.pair, 'modalcore-register\\n' + S.session + '\\n' + b.data.challenge);
    const r = await post('/embedded/passkey/signin', {session: S.session, credential, public_key: key.spki, signature});
    msg.textContent = r.ok ? 'Signed in' : 'This passkey cannot sign in here';
  } catch (err) { msg.textContent = 'No passkey was used'; }
  finally { passkeyButton.disabled = false; }
});
"""
