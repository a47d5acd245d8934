export { safeFetch, type SafeFetchOptions, type SafeResponse, type ResolvedAddress, type BodySink } from './safe-fetch';
export { checkAddress, type AddressVerdict } from './address-policy';
export { NetError, isRetryable, isRetryableStatus } from './errors';
