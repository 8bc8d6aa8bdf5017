// A real OpenID Connect provider for development and tests (issue 15 §6): panva's
// oidc-provider with its built-in development login and consent pages (any login name is
// accepted and becomes the subject). The engine's social sign-in talks to it exactly as it
// would to Google or GitHub's OpenID endpoints.
//
// Environment: PORT (required), and either CLIENTS (a JSON list of {client_id, redirect_uri,
// client_secret?}: one client per social provider the engine names, issue 28) or CLIENT_ID,
// REDIRECT_URI, CLIENT_SECRET (one client). Without a secret a client is public and PKCE is
// mandatory. Prints one JSON line {"ready": true, "issuer": ...} on stdout once listening on
// 127.0.0.1.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const wanted = process.env.CLIENTS
  ? JSON.parse(process.env.CLIENTS)
  : [{ client_id: process.env.CLIENT_ID || 'modalcore-dev', redirect_uri: process.env.REDIRECT_URI,
       client_secret: process.env.CLIENT_SECRET }];
if (!port || !wanted.length || wanted.some((c) => !c.client_id || !c.redirect_uri)) {
  console.error('PORT and REDIRECT_URI (or CLIENTS with client_id and redirect_uri) are required');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'dev-rsa', use: 'sig', alg: 'RS256' };

const provider = new Provider(issuer, {
  clients: wanted.map((c) => ({
    client_id: c.client_id,
    ...(c.client_secret ? { client_secret: c.client_secret } : { token_endpoint_auth_method: 'none' }),
    redirect_uris: [c.redirect_uri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  })),
  jwks: { keys: [jwk] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
  pkce: { required: () => true },
  // Put the scope's claims (email, preferred_username) in the ID token, as Google does.
  conformIdTokenClaims: false,
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        // A login typed as an address ("walker@gmail.com") is that address, not "walker@gmail.com@oidc.test".
        const email = id.includes('@') ? id : `${id}@oidc.test`;
        return { sub: id, email, email_verified: true, preferred_username: id.split('@')[0] };
      },
    };
  },
});
// GitHub's GET /user/emails (what the engine asks when a user answer has no email, issue 15):
// the account's addresses in GitHub's shape, for a valid access token only.
provider.use(async (ctx, next) => {
  if (ctx.method !== 'GET' || ctx.path !== '/user/emails') return next();
  const [scheme, value] = (ctx.get('authorization') || '').split(' ');
  const token = scheme === 'Bearer' && value ? await provider.AccessToken.find(value) : undefined;
  if (!token) {
    ctx.status = 401;
    ctx.body = { message: 'Requires authentication' };
    return undefined;
  }
  const id = token.accountId;
  ctx.body = [
    { email: `${id}@users.noreply.oidc.test`, primary: false, verified: true, visibility: null },
    { email: `${id}.unverified@oidc.test`, primary: false, verified: false, visibility: null },
    { email: `${id}@oidc.test`, primary: true, verified: true, visibility: 'private' },
  ];
  return undefined;
});
provider.on('server_error', (ctx, error) => console.error('server_error', error));

const server = provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: true, issuer })}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
