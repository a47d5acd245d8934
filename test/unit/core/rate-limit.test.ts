/**
 * The allowance's arithmetic and shapes (services/core/rate-limit.ts, core/people/key-limits.ts,
 * the MCP count of tool calls); the counting itself runs in PostgreSQL:
 * test/integration/mcp/rate-limit.test.ts.
 */
import { allowanceHeaders, allowanceOf, tooManyRequests } from '../../../services/core/rate-limit';
import { parseKeyRateLimit } from '../../../services/core/people';
import { toolCallCount } from '../../../services/mcp/auth';

describe('the allowance a statement tells', () => {
  it('counts down on an admitted call and names the seconds to the window turn', () => {
    expect(allowanceOf({ allowance: 10, used_now: 10, used: 10, reset_in: '12.2' }, 1)).toEqual({
      limit: 10,
      remaining: 0,
      resetSeconds: 13,
      admitted: true,
    });
  });

  it('refuses with what was left when a request of several calls did not fit', () => {
    expect(allowanceOf({ allowance: 10, used_now: null, used: 8, reset_in: 0.01 }, 3)).toEqual({
      limit: 10,
      remaining: 2,
      resetSeconds: 1,
      admitted: false,
    });
    // The count read beside a refusal can be older than other pods' calls: never more than calls - 1 left.
    expect(allowanceOf({ allowance: 10, used_now: null, used: 4, reset_in: 60 }, 1)).toMatchObject({
      remaining: 0,
      resetSeconds: 60,
      admitted: false,
    });
  });

  it('admits a request without tool calls and spends nothing', () => {
    expect(allowanceOf({ allowance: 10, used_now: null, used: 10, reset_in: 5 }, 0)).toMatchObject({
      remaining: 0,
      admitted: true,
    });
  });

  it('answers the headers and a refusal an agent can act on', () => {
    const a = { limit: 600, remaining: 0, resetSeconds: 17, admitted: false };
    expect(allowanceHeaders(a)).toEqual({
      'RateLimit-Limit': '600',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '17',
      'RateLimit-Policy': '600;w=60',
    });
    expect(tooManyRequests(a).toJSON()).toEqual({
      code: 'too_many_requests',
      message: expect.stringMatching(/600 calls of this minute; retry after 17 s/),
      retry_after_seconds: 17,
      retryAfterSeconds: 17,
    });
  });
});

describe("a key's own allowance", () => {
  it.each([
    [1, 1],
    [1_000_000, 1_000_000],
    ['250', 250],
    [null, null],
    ['default', null],
  ])('takes %p as %p', (raw, parsed) => expect(parseKeyRateLimit(raw)).toBe(parsed));

  it.each([0, 1_000_001, 1.5, -3, '12x', ''])('refuses %p, naming the field and the rule', (raw) => {
    expect(() => parseKeyRateLimit(raw)).toThrow(
      expect.objectContaining({
        code: 'invalid_arguments',
        details: expect.objectContaining({
          field: 'rate_limit_per_minute',
          rule: expect.stringMatching(/from 1 to 1000000/),
        }),
      }),
    );
  });
});

describe('the tool calls an MCP request spends', () => {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_get_user', arguments: {} } };
  it.each([
    [call, 1],
    [[call, { ...call, id: 2 }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }], 2],
    [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, 0],
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, 0],
    [null, 0],
  ])('%j spends %i', (body, n) => expect(toolCallCount(body)).toBe(n));
});
