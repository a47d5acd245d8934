import { NetError, isRetryableStatus } from '../net/errors';

/**
 * Calls to the operator's own model servers (ASR_URL, LLM_URL). These are configured, trusted
 * addresses that usually live inside the cluster, so they use fetch directly rather than the SSRF guard
 * that protects downloads of user-supplied URLs.
 */
export interface ModelServer {
  url: string;
  apiKey: string;
}

/** `{base}/v1/{path}`, accepting a base URL given with or without the trailing `/v1`. */
export function endpoint(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return `${trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`}/${path}`;
}

export async function postToModelServer(
  what: string,
  server: ModelServer,
  path: string,
  body: RequestInit['body'],
  options: { timeoutMs: number; headers?: Record<string, string>; fetchImpl?: typeof fetch },
): Promise<unknown> {
  const url = endpoint(server.url, path);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (server.apiKey) headers.authorization = `Bearer ${server.apiKey}`;
  let response: Response;
  try {
    response = await (options.fetchImpl ?? fetch)(url, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    const reason =
      err.name === 'TimeoutError'
        ? `no answer within ${Math.round(options.timeoutMs / 1000)} s`
        : (err.cause?.code ?? err.message);
    throw new NetError(`${what} at ${url} could not be reached (${reason})`, {
      retryable: true,
      rule: 'unreachable',
      code: 'internal_error',
    });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new NetError(
      `${what} at ${url} answered ${response.status}: ${text.slice(0, 300).trim() || response.statusText}`,
      {
        retryable: isRetryableStatus(response.status),
        rule: 'upstream_status',
        status: response.status,
        code: 'internal_error',
      },
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new NetError(`${what} at ${url} answered with something that is not JSON: ${text.slice(0, 120)}`, {
      retryable: false,
      rule: 'upstream_format',
      code: 'internal_error',
    });
  }
}
