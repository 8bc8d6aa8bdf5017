"""The engine-origin sign-in frames' scripts (verify.py serves them; the approval frame reuses
the social and verify parts): the code's frame, a re-verification in the approval frame, and the
social sign-in with its provider window."""

SIGNIN_SCRIPT = """
const S = %(data)s;
const input = document.getElementById('code');
let key = null;
// where the browser gives this frame no storage, typing the code (a press) opens the key window
deviceKey().then((k) => { key = k; }, (e) => { if (e instanceof KeyBlocked) keyNote(KEY_TEXT.signin); });
input.addEventListener('input', async (e) => {
  if (!e.isTrusted) return;
  const code = input.value.replace(/\\D/g, '').slice(0, 6);
  input.value = code;
  if (code.length !== 6) return;
  input.disabled = true;
  try {
    key = key || await deviceKey('open');
    keyNote('');
    await post(S.path, {session: S.session, code, public_key: key.spki,
                        signature: await signText(key.pair, 'modalcore-register\\n' + S.session + '\\n' + code)});
  } catch (err) {
    if (err instanceof KeyBlocked) { key = null; keyNote(err.message); } else throw err;
  } finally { input.disabled = false; input.value = ''; input.focus(); }
});
input.focus();
"""

# the approval frame's part for a browser whose key is not registered (server/approval.py)
VERIFY_SCRIPT = """
function el(tag, props) { return Object.assign(document.createElement(tag), props); }
function showVerify(c) {
  verify.textContent = '';
  const msg = el('p', {id: 'verify-state'}); msg.setAttribute('role', 'status');
  verify.append(el('p', {textContent: 'Verify it is you to approve from this browser'}));
  if (c.verify === 'email') {
    const send = el('button', {type: 'button', textContent: 'Send a code to ' + c.who});
    const input = el('input', {id: 'verify-code', inputMode: 'numeric', autocomplete: 'one-time-code', maxLength: 6, hidden: true});
    input.setAttribute('aria-label', 'Verification code');
    send.addEventListener('click', async (e) => {
      if (!e.isTrusted) return;
      send.disabled = true;
      const r = await post('/embedded/verify/send', {session: S.session});
      send.disabled = false;
      msg.textContent = r.ok ? (r.data.message || '') : 'The code could not be sent. Try again';
      input.hidden = !r.ok || r.data.status !== 'sent';
      if (!input.hidden) input.focus();
    });
    input.addEventListener('input', async (e) => {
      if (!e.isTrusted) return;
      const code = input.value.replace(/\\D/g, '').slice(0, 6);
      input.value = code;
      if (code.length !== 6) return;
      input.disabled = true;
      const r = await post('/embedded/verify/code', {session: S.session, code, public_key: key.spki,
        signature: await signText(key.pair, 'modalcore-register\\n' + S.session + '\\n' + code)});
      input.disabled = false; input.value = '';
      if (r.ok && r.data.verdict === 'accepted') await ready();
      else msg.textContent = r.data.message || 'The code could not be checked. Try again';
    });
    verify.append(send, input, msg);
  } else if (c.verify === 'farcaster') {
    verify.append(msg);
    farcasterVerify(msg).then((box) => verify.prepend(box));
  } else {
    verify.append(socialButton(c.provider, msg, ready), msg);
  }
}
"""

# a button that opens the provider in a popup of this frame; the engine's callback, in that
# popup, asks this frame to confirm with its key: only a window of the engine's origin that this
# frame opened (or took, below) is answered, only for the state this frame began, with the
# flow value it made
SOCIAL_SCRIPT = """
let popup = null, afterSocial = null, flow = null, watch = null;
// the sign-in begun in `win`: the provider's URL for it, or null (the text says why)
async function begin(win, msg, done) {
  popup = win; afterSocial = done; flow = null;
  try { key = key || await deviceKey('look'); } catch (e) {
    if (!(e instanceof KeyBlocked)) throw e;
    // no storage here and no key window open: the sign-in's own window (this origin, top level:
    // first-party storage) keeps the key, and stays as the key window once signed in (social.py)
    key = win && !win.closed ? await keyIn(win) : null;
    if (!key) {
      if (win) win.close();
      popup = null; offerKeyWindow(async () => { msg.textContent = ''; }); return null;
    }
  }
  const bind = b64(crypto.getRandomValues(new Uint8Array(32)));
  const r = await post('/embedded/verify/social', {session: S.session, public_key: key.spki, bind});
  if (popup !== win) return null;  // another window took over meanwhile
  if (!r.ok || !win || win.closed) {
    msg.textContent = win && win.closed ? 'The sign-in window was closed' : 'The sign-in window could not be opened';
    if (win) win.close();
    popup = null; return null;
  }
  msg.textContent = 'Connect in the provider window';
  flow = {state: new URL(r.data.url).searchParams.get('state'), bind};
  clearInterval(watch);
  // a closed window is said; back on the engine's callback page, the popup is greeted (a popup
  // this frame did not open cannot find it)
  watch = setInterval(() => {
    if (popup !== win) { clearInterval(watch); return; }
    if (win.closed) {
      clearInterval(watch); popup = null; flow = null;
      msg.textContent = 'The sign-in window was closed';
      return;
    }
    let path = '';
    try { path = win.location.pathname; } catch (e) { return; }  // at the provider
    if (path.startsWith('/embedded/oidc/callback/')) win.postMessage({modalcore: 'social-hello'}, location.origin);
  }, 250);
  return r.data.url;
}
function socialButton(name, msg, done) {
  const go = Object.assign(document.createElement('button'), {type: 'button', textContent: 'Continue with ' + name});
  go.addEventListener('click', async (e) => {
    if (!e.isTrusted) return;
    const win = window.open('about:blank', 'modalcore-social', 'popup,width=480,height=640');
    const url = await begin(win, msg, done);
    if (url) win.location = url;
  });
  return go;
}
// issue 39: the window one press on Connect opened (server/social_window.py), looked for only
// when the engine served that page for this session: a frame finds a window of its own origin
// by name; it is taken only while it shows that page for this session (its location is
// readable: same origin) and no other window is open; a blank one the lookup made is closed
async function takeWindow(msg, done) {
  let win = null;
  try { win = window.open('', 'modalcore-popup'); } catch (e) { return; }
  if (!win) return;
  for (let i = 0, loading = false; i < 50 && !win.closed; i++) {
    let at = null;
    try { at = new URL(win.location.href); } catch (e) { loading = true; }  // not (yet) the engine's page
    if (at && at.href === 'about:blank' && !loading) { win.close(); return; }  // the lookup made it
    if (at && at.href !== 'about:blank') {
      if (at.origin !== location.origin || at.pathname !== S.window || at.searchParams.get('session') !== S.session
          || (popup && !popup.closed)) return;
      const url = await begin(win, msg, done);
      if (url) win.location = url;
      return;
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
}
window.addEventListener('message', async (e) => {
  if (e.origin !== location.origin || !popup || e.source !== popup || typeof e.data !== 'object' || !e.data) return;
  if (e.data.modalcore === 'social-confirm' && flow && e.data.state === flow.state) {
    const signature = await signText(key.pair, 'modalcore-social\\n' + flow.state);
    popup.postMessage({modalcore: 'social-confirmed', signature, bind: flow.bind}, location.origin);
  } else if (e.data.modalcore === 'social-finished') {
    clearInterval(watch); popup = null; if (afterSocial) await afterSocial(e.data.ok);
  }
});
"""

SOCIAL_SIGNIN_SCRIPT = """
const S = %(data)s;
const msg = document.getElementById('state');
let key = null;
deviceKey('look').then((k) => { key = k; }, (e) => { if (e instanceof KeyBlocked) keyNote(e.message); });
const signedIn = (ok) => { msg.textContent = ok ? 'Signed in' : 'The sign-in failed. Try again'; };
document.getElementById('social').append(socialButton(S.name, msg, signedIn));
if (S.window) takeWindow(msg, signedIn);
"""
