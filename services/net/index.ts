export { safeFetch, type SafeFetchOptions, type SafeResponse, type ResolvedAddress } from './safe-fetch';
export { fetchMedia, mediaDuration, fileNameFor, type FetchedMedia, type MediaFetchConfig } from './media';
export { sniffMedia, type MediaKind, type Sniffed } from './sniff';
export { checkAddress, type AddressVerdict } from './address-policy';
export { NetError, isRetryable, isRetryableStatus } from './errors';
