/**
 * The allowance's arithmetic and shapes (services/core/limits/rate-limit.ts, core/people/key-limits.ts,
 * the MCP count of tool calls); the counting itself runs in PostgreSQL:
 * test/integration/mcp/rate-limit.test.ts.
 */
import {
  abandonPlan,
  allowanceAfter,
  allowanceHeaders,
  callsToCount,
  LEASE_MAX,
  leaseSize,
  meterCalls,
  planCalls,
  tooManyRequests,
} from '../../../services/core/limits';
import { parseKeyRateLimit } from '../../../services/core/people';
import { toolCallCount } from '../../../services/mcp/auth';

type Row = Parameters<typeof allowanceAfter>[3];
const row = (r: Omit<Row, 'granted'> & { granted?: number }): Row => ({ ...r, granted: r.granted ?? null });

describe('the allowance a statement tells', () => {
  it('leases a hundredth of the allowance, at most LEASE_MAX calls, at least the request', () => {
    expect([leaseSize(12, 1), leaseSize(99, 1), leaseSize(101, 1), leaseSize(600, 1), leaseSize(1e9, 1)]).toEqual([
      1,
      1,
      2,
      6,
      LEASE_MAX,
    ]);
    expect(leaseSize(50, 3)).toBe(3);
  });

  it('counts an allowance under a hundred call by call: down on each call, the seconds to the window turn', () => {
    const now = Date.now();
    expect(planCalls('unit:a', 1, now)).toBe('lease');
    expect(
      allowanceAfter(
        'unit:a',
        1,
        'lease',
        row({ allowance: 10, used_now: 10, granted: 1, used: 10, reset_in: '12.2' }),
        now,
      ),
    ).toEqual({ limit: 10, remaining: 0, resetSeconds: 13, admitted: true });
    expect(planCalls('unit:a', 1, now)).toBe('lease');
  });

  it("spends a lease's calls in the process and counts them in what remains", () => {
    const now = Date.now();
    expect(planCalls('unit:b', 1, now)).toBe('lease');
    // Requests that find a lease being taken wait for it.
    expect(planCalls('unit:b', 1, now)).toBe('wait');
    const first = allowanceAfter(
      'unit:b',
      1,
      'lease',
      row({ allowance: 10_000, used_now: 40, granted: 20, used: 40, reset_in: 30 }),
      now,
    );
    // 40 counted in PostgreSQL, 19 of them this process's and not spent yet.
    expect(first).toMatchObject({ remaining: 10_000 - 40 + 19, admitted: true });
    // An exact count that answers meanwhile adds nothing to the lease.
    allowanceAfter(
      'unit:b',
      1,
      'exact',
      row({ allowance: 10_000, used_now: 41, granted: 1, used: 41, reset_in: 30 }),
      now,
    );
    for (let i = 0; i < 19; i++) expect(planCalls('unit:b', 1, now)).toBe('reserved');
    expect(callsToCount('reserved', 1)).toBe(0);
    expect(planCalls('unit:b', 1, now)).toBe('lease');
    abandonPlan('unit:b', 1, 'lease');
    abandonPlan('unit:b', 1, 'reserved');
    expect(planCalls('unit:b', 1, now)).toBe('reserved');
    const spent = allowanceAfter(
      'unit:b',
      1,
      'reserved',
      row({ allowance: 10_000, used_now: null, used: 60, reset_in: 29 }),
      now,
    );
    expect(spent).toMatchObject({ remaining: 10_000 - 60, admitted: true });
  });

  it('lets requests that find a lease being taken read, wait for it and spend from it: one write for all', async () => {
    const counted: number[] = [];
    let grant!: () => void;
    const granted = new Promise<void>((resolve) => (grant = resolve));
    const run = async (count: number, lease: boolean) => {
      counted.push(count);
      if (count === 0) return row({ allowance: 10_000, used_now: null, used: 0, reset_in: 30 });
      expect(lease).toBe(true);
      await granted;
      return row({ allowance: 10_000, used_now: 20, granted: 20, used: 20, reset_in: 30 });
    };
    const requests = Array.from({ length: 5 }, () => meterCalls('unit:w', 1, run, () => 'ok'));
    await new Promise((r) => setTimeout(r, 10));
    grant();
    const answers = await Promise.all(requests);
    expect(answers.every((a) => a.credential === 'ok' && a.allowance.admitted)).toBe(true);
    // One lease of 20 counted; the four others read and spent from it: 15 left.
    expect(counted.filter((c) => c > 0)).toEqual([1]);
    expect(counted.filter((c) => c === 0)).toHaveLength(4);
    expect(planCalls('unit:w', 15)).toBe('reserved');
    expect(planCalls('unit:w', 1)).toBe('lease');
  });

  it('spends nothing when the credential fails, not even a waiting request', async () => {
    const run = async (count: number) =>
      row({ allowance: 100, used_now: count ? 1 : null, granted: count ? 1 : undefined, used: count, reset_in: 30 });
    const refuse = () => {
      throw new Error('auth_failed');
    };
    await expect(meterCalls('unit:f', 1, run, refuse)).rejects.toThrow('auth_failed');
    // The lease being taken was given up with the request.
    expect(planCalls('unit:f', 1)).toBe('lease');
  });

  it('ends a lease before its window does', () => {
    const sent = Date.now();
    planCalls('unit:c', 1, sent);
    allowanceAfter(
      'unit:c',
      1,
      'lease',
      row({ allowance: 10_000, used_now: 20, granted: 20, used: 20, reset_in: 2 }),
      sent,
    );
    expect(planCalls('unit:c', 1, sent + 1999)).toBe('reserved');
    expect(planCalls('unit:c', 1, sent + 2000)).toBe('lease');
  });

  it('refuses with what was left when a request of several calls did not fit', () => {
    expect(
      allowanceAfter('unit:d', 3, 'lease', row({ allowance: 10, used_now: null, used: 8, reset_in: 0.01 }), Date.now()),
    ).toEqual({ limit: 10, remaining: 2, resetSeconds: 1, admitted: false });
    // The count read beside a refusal can be older than other pods' calls: never more than calls - 1 left.
    expect(
      allowanceAfter('unit:d', 1, 'exact', row({ allowance: 10, used_now: null, used: 4, reset_in: 60 }), Date.now()),
    ).toMatchObject({ remaining: 0, resetSeconds: 60, admitted: false });
  });

  it('admits a request without tool calls and spends nothing', () => {
    expect(planCalls('unit:e', 0)).toBe('exact');
    expect(
      allowanceAfter('unit:e', 0, 'exact', row({ allowance: 10, used_now: null, used: 10, reset_in: 5 }), Date.now()),
    ).toMatchObject({ remaining: 0, admitted: true });
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
