/** How much a caller may take: the shared rate limit per key and the token estimates behind every answer's budget. */
export {
  LEASE_MAX,
  LEASE_SHARE,
  WINDOW_SECONDS,
  abandonPlan,
  allowanceAfter,
  allowanceHeaders,
  allowanceSql,
  callsToCount,
  checkRateLimit,
  countCalls,
  leaseSize,
  meterCalls,
  planCalls,
  tooManyRequests,
  type Allowance,
  type AllowanceRow,
  type CallPlan,
} from './rate-limit';
export {
  JSON_FRAMING_TOKENS,
  estimateDenseTokens,
  estimateJsonTokens,
  estimateNumberTokens,
  estimateTextTokens,
  numberTokensOfText,
} from './tokens';
