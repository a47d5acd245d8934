/**
 * Metadata of another issuer (the external identity provider, or the OpenID Connect provider the
 * built-in server delegates sign-in to): OpenID Connect discovery first, then RFC 8414. The document
 * must name the same issuer it was fetched for, so a misrouted URL cannot hand us someone else's keys.
 */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

const TIMEOUT_MS = 5_000;
const trimSlash = (s: string) => s.replace(/\/+$/, '');

export function discoveryUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = trimSlash(u.pathname);
  return [
    `${trimSlash(issuer)}/.well-known/openid-configuration`,
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
  ];
}

export async function fetchIssuerMetadata(issuer: string): Promise<IssuerMetadata> {
  const problems: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      if (!res.ok) {
        problems.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      const doc = (await res.json()) as IssuerMetadata;
      if (typeof doc.issuer !== 'string' || trimSlash(doc.issuer) !== trimSlash(issuer)) {
        problems.push(`${url}: names issuer ${JSON.stringify(doc.issuer)}`);
        continue;
      }
      return doc;
    } catch (e) {
      problems.push(`${url}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  throw new Error(`no metadata for issuer ${issuer} (${problems.join('; ')})`);
}

/** Memoized per issuer; a failure is forgotten so the next request tries again. */
export function issuerMetadataCache(): (issuer: string) => Promise<IssuerMetadata> {
  const cache = new Map<string, Promise<IssuerMetadata>>();
  return (issuer) => {
    let hit = cache.get(issuer);
    if (!hit) {
      hit = fetchIssuerMetadata(issuer);
      cache.set(issuer, hit);
      hit.catch(() => cache.delete(issuer));
    }
    return hit;
  };
}
