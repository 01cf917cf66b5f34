// The OpenID Provider of the identity tests: node oidc-provider 8.8.1 on 127.0.0.1, configured from
// the JSON file named by IDP_CONFIG:
//   { "keys": [<private JWK>, ...],          the first signs; the tests hold them to mint tokens
//     "resources": ["<audience>", ...],      APIs it issues JWT access tokens for (RFC 8707)
//     "scopes": "runs.start runs.read ...",  the scopes of those APIs
//     "clients": [<client metadata + "tenant">, ...],
//     "accounts": { "<login>": { "tenant": ..., "groups": [...], "email": ... } } }
// Dev interactions (its own login page; any password), client credentials, dynamic registration
// (for MCP clients) and RP-initiated logout are on; PKCE (S256) is required of every client.
// Consent is given at once (a grant of what was asked), as a company's IdP does for its own apps.
// Test-only: POST /_test/keys with a JSON list of private JWKs rotates the signing keys in place.
// Prints "IDP listening on <issuer>" once it serves.
import { readFileSync } from 'node:fs';
import * as http from 'node:http';

import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(readFileSync(process.env.IDP_CONFIG, 'utf8'));
const accounts = config.accounts ?? {};
const tenants = Object.fromEntries(config.clients.map((c) => [c.client_id, c.tenant]));

function claimsOf(login) {
  const account = accounts[login] ?? {};
  return {
    sub: login,
    ...(account.email ? { email: account.email, email_verified: true } : {}),
    ...(account.tenant ? { tenant: account.tenant } : {}),
    ...(account.groups ? { groups: account.groups } : {}),
  };
}

function configuration(keys) {
  return {
    jwks: { keys },
    clients: config.clients.map(({ tenant, ...metadata }) => metadata),
    // plain http on loopback: browsers drop SameSite=None cookies that are not Secure
    cookies: {
      keys: ['outrider-identity-tests'],
      long: { sameSite: 'lax' },
      short: { sameSite: 'lax' },
    },
    claims: { openid: ['sub', 'tenant', 'groups'], email: ['email', 'email_verified'] },
    // the APIs' scopes too: clients registering themselves (MCP hosts) name them
    scopes: ['openid', 'offline_access', 'email', ...config.scopes.split(' ')],
    pkce: { required: () => true, methods: ['S256'] },
    findAccount: async (ctx, id) => ({ accountId: id, claims: async () => claimsOf(id) }),
    extraTokenClaims: async (ctx, token) => {
      if (token.accountId) {
        const { tenant, groups } = claimsOf(token.accountId);
        return { tenant, groups };
      }
      return { tenant: tenants[token.clientId] };
    },
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope(ctx.oidc.params.scope ?? 'openid');
      grant.addOIDCClaims(['sub', 'tenant', 'groups', 'email', 'email_verified']);
      const asked = ctx.oidc.params.resource;
      for (const resource of [asked ?? []].flat()) grant.addResourceScope(resource, config.scopes);
      await grant.save();
      return grant;
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (ctx, client, oneOf) => oneOf ?? undefined,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resource) => {
          if (!config.resources.includes(resource)) throw new errors.InvalidTarget();
          return {
            scope: config.scopes,
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
          };
        },
      },
    },
  };
}

let provider;
const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/_test/keys') {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      provider = new Provider(provider.issuer, configuration(JSON.parse(body)));
      res.writeHead(204).end();
    });
    return;
  }
  provider.callback()(req, res);
});
server.listen(Number(process.env.IDP_PORT ?? 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = new Provider(issuer, configuration(config.keys));
  console.log(`IDP listening on ${issuer}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
