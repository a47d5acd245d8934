/**
 * Signing keys of the built-in authorization server. They live in PostgreSQL (private halves sealed
 * with SECRETS_KEY) so that every mcp pod signs with the same key and publishes the same JWKS.
 *
 * Rotation (`rotateSigningKey`) retires the signing key and creates a new one; a retired key stays
 * published until every token it signed has expired (access-token lifetime plus clock skew), then it
 * is deleted. Pods cache the signing key for a minute, and reload the published keys at once (at most
 * every few seconds) when a token names a key id they do not know, so a rotation on one pod never
 * makes another refuse good tokens.
 */
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
  type JWTVerifyGetKey,
} from 'jose';
import type { Knex } from 'knex';
import { audit } from '../core/audit';
import { ServiceError } from '../platform/errors';
import type { Config } from '../platform/config';
import { openJson, sealJson } from '../platform/sealing';

/** Keys sealed before platform/sealing.ts hold the JWK's JSON text ("k1."); newer ones the JWK itself. */
function openJwk(key: Buffer, sealed: string): JWK {
  const value = openJson<JWK | string>(key, sealed);
  return typeof value === 'string' ? (JSON.parse(value) as JWK) : value;
}

export type SigningAlg = 'ES256' | 'RS256';
type KeyConfig = Pick<Config, 'secretsKey' | 'oauth'>;

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: CryptoKey;
}

interface KeyRow {
  kid: string;
  alg: SigningAlg;
  public_jwk: JWK;
  private_jwk_sealed: string;
  retired_at: Date | null;
}

const SIGNING_CACHE_MS = 60_000;
const signingCache = new WeakMap<Knex, { at: number; key: Promise<SigningKey> }>();

function secretsKey(config: KeyConfig): Buffer {
  if (!config.secretsKey)
    throw new ServiceError(
      'invariant_violation',
      'SECRETS_KEY is not configured; the built-in OAuth server needs it to keep its signing keys',
    );
  return config.secretsKey;
}

/**
 * How long a retired key must stay published: the longest a token it signed can still be accepted,
 * counting the minute another pod may keep signing with it from its cache after the rotation.
 */
function retentionMs(config: KeyConfig): number {
  return SIGNING_CACHE_MS + config.oauth.accessTokenTtlMs + config.oauth.clockSkewMs;
}

async function newKeyRow(config: KeyConfig, alg: SigningAlg) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const priv = await exportJWK(privateKey);
  return {
    kid,
    alg,
    public_jwk: JSON.stringify({ ...pub, kid, alg, use: 'sig' }),
    private_jwk_sealed: sealJson(secretsKey(config), priv),
  };
}

/** The key that signs now, creating the first one if there is none (pods racing converge on one row). */
async function activeKeyRow(db: Knex, config: KeyConfig): Promise<KeyRow> {
  const existing = await db<KeyRow>('oauth_signing_keys').whereNull('retired_at').first();
  if (existing) return existing;
  await db('oauth_signing_keys')
    .insert(await newKeyRow(config, config.oauth.signingAlg))
    .onConflict()
    .ignore();
  const created = await db<KeyRow>('oauth_signing_keys').whereNull('retired_at').first();
  if (!created) throw new Error('no active signing key after creating one');
  return created;
}

async function loadSigningKey(db: Knex, config: KeyConfig): Promise<SigningKey> {
  const row = await activeKeyRow(db, config);
  const jwk = openJwk(secretsKey(config), row.private_jwk_sealed);
  return { kid: row.kid, alg: row.alg, privateKey: (await importJWK(jwk, row.alg)) as CryptoKey };
}

/** The signing key, cached per process for a minute. */
export async function currentSigningKey(db: Knex, config: KeyConfig): Promise<SigningKey> {
  const hit = signingCache.get(db);
  if (hit && Date.now() - hit.at < SIGNING_CACHE_MS) return hit.key;
  const key = loadSigningKey(db, config);
  signingCache.set(db, { at: Date.now(), key });
  key.catch(() => signingCache.delete(db));
  return key;
}

/** Public keys a verifier must know: the signing key and retired keys whose tokens may still be valid. */
export async function publishedJwks(db: Knex, config: KeyConfig): Promise<{ keys: JWK[] }> {
  await activeKeyRow(db, config);
  const rows = await db<KeyRow>('oauth_signing_keys')
    .where((w) => w.whereNull('retired_at').orWhere('retired_at', '>', new Date(Date.now() - retentionMs(config))))
    .orderBy('created_at', 'desc')
    .select('public_jwk');
  return { keys: rows.map((r) => r.public_jwk) };
}

/**
 * Retire the signing key and start signing with a new one (of OAUTH_SIGNING_ALG unless `alg` says
 * otherwise). Keys retired longer ago than tokens live are deleted. Writes an audit row.
 */
export async function rotateSigningKey(
  db: Knex,
  config: KeyConfig,
  opts: { alg?: SigningAlg } = {},
): Promise<{ kid: string; alg: SigningAlg; retired: string[] }> {
  const row = await newKeyRow(config, opts.alg ?? config.oauth.signingAlg);
  const result = await db.transaction(async (tx) => {
    // One rotation at a time across pods: the "one active key" index would refuse a second anyway.
    await tx.raw("select pg_advisory_xact_lock(hashtext('oauth_signing_keys'))");
    const retired = await tx('oauth_signing_keys')
      .whereNull('retired_at')
      .update({ retired_at: tx.fn.now() })
      .returning('kid');
    await tx('oauth_signing_keys').insert(row);
    await tx('oauth_signing_keys')
      .where('retired_at', '<', new Date(Date.now() - retentionMs(config)))
      .delete();
    const retiredKids = retired.map((r: { kid: string }) => r.kid);
    await audit(
      tx,
      null,
      'oauth.signing_key_rotate',
      { type: 'oauth_signing_key', id: row.kid },
      { alg: row.alg, retired: retiredKids },
    );
    return { kid: row.kid, alg: row.alg, retired: retiredKids };
  });
  signingCache.delete(db);
  return result;
}

/**
 * The verification keys of the built-in issuer, for jose's jwtVerify: the published keys, cached for a
 * minute and reloaded early (at most every 5 s) when a token names an unknown key id.
 */
export function databaseKeySet(db: Knex, config: KeyConfig): JWTVerifyGetKey {
  let cache: { at: number; kids: Set<string>; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  let lastLoad = 0;
  return async (header, token) => {
    const now = Date.now();
    const unknownKid = Boolean(header.kid && cache && !cache.kids.has(header.kid));
    if (!cache || now - cache.at > 60_000 || (unknownKid && now - lastLoad > 5_000)) {
      lastLoad = now;
      const jwks = await publishedJwks(db, config);
      cache = { at: now, kids: new Set(jwks.keys.map((k) => k.kid!)), set: createLocalJWKSet(jwks) };
    }
    return cache.set(header, token);
  };
}
