import { ServiceError, type ErrorCode } from '../platform/errors';

/**
 * A failed outbound HTTP call (media download, webhook, ASR or chat server). `retryable` tells the
 * caller, typically a Temporal activity, whether trying again can help: a refused address, a 404 or a
 * file over the size limit never will; a timeout, a reset connection or a 503 may.
 * The `name` carries the same fact (`NonRetryableNetError` / `RetryableNetError`) because Temporal turns
 * it into the failure type, which a retry policy's nonRetryableErrorTypes can list.
 */
export class NetError extends ServiceError {
  readonly retryable: boolean;
  readonly status?: number;

  constructor(
    message: string,
    options: { retryable: boolean; rule: string; field?: string; status?: number; code?: ErrorCode },
  ) {
    super(options.code ?? (options.retryable ? 'internal_error' : 'invalid_arguments'), message, {
      field: options.field,
      rule: options.rule,
    });
    this.retryable = options.retryable;
    this.status = options.status;
    this.name = options.retryable ? 'RetryableNetError' : 'NonRetryableNetError';
  }
}

export function isRetryable(e: unknown): boolean {
  if (e instanceof NetError) return e.retryable;
  return !(e instanceof ServiceError);
}

/** Status codes worth another try later: timeouts, rate limits and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}
