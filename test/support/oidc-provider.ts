/**
 * An OpenID Connect provider stood up in a test: discovery, JWKS, and a token endpoint that checks PKCE
 * and the client secret and mints ID tokens with jose. The test decides who signs in by registering a
 * code for the authorization request it saw.
 */
import { createServer, Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

interface PendingCode {
  challenge: string;
  nonce: string;
  claims: Record<string, unknown>;
}

export class FakeOidcProvider {
  issuer = '';
  readonly codes = new Map<string, PendingCode>();
  readonly tokenRequests: URLSearchParams[] = [];
  private server!: Server;
  private key!: { privateKey: CryptoKey; jwk: JWK };

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
  ) {}

  async start() {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    this.key = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' } };
    this.server = createServer((req, res) => void this.handle(req.url ?? '', req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(url: string, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/auth`,
        token_endpoint: `${this.issuer}/token`,
        jwks_uri: `${this.issuer}/jwks`,
      });
    }
    if (url === '/jwks') return json(200, { keys: [this.key.jwk] });
    if (url === '/token' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      this.tokenRequests.push(form);
      const basic = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return json(401, { error: 'invalid_client' });
      const pending = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!pending || createHash('sha256').update(verifier).digest('base64url') !== pending.challenge)
        return json(400, { error: 'invalid_grant' });
      const idToken = await new SignJWT({ nonce: pending.nonce, email_verified: true, ...pending.claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
        .setIssuer(this.issuer)
        .setAudience(this.clientId)
        .setSubject('idp-user')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(this.key.privateKey);
      return json(200, { access_token: 'idp-access-token', token_type: 'Bearer', id_token: idToken });
    }
    res.writeHead(404).end();
  }
}
