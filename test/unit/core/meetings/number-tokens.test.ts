import fc from 'fast-check';
import { estimateNumberTokens, numberTokensOfText } from '../../../../services/core/limits';

describe('estimateNumberTokens', () => {
  it('counts what the number text holds: digit groups of three, the point on its own', () => {
    expect([0, 7, 999, 1000, 123456, 0.5, 4.25, 12.125, 1234.5].map(estimateNumberTokens)).toEqual([
      1, 1, 1, 2, 2, 3, 3, 3, 4,
    ]);
  });

  it('agrees with the count on the text for times of up to three decimals, indices, and any other number', () => {
    const millis = fc.integer({ min: 0, max: 1_000_000_000 }).map((k) => k / 1000);
    const any = fc.double({ noNaN: true, noDefaultInfinity: true });
    const edges = fc.constantFrom(
      1e-7,
      0.0001,
      0.1 + 0.2,
      999.9995,
      1e15,
      1e15 - 0.5,
      123456789012345,
      -0.001,
      -3,
      Number.MAX_SAFE_INTEGER,
    );
    fc.assert(
      fc.property(fc.oneof(millis, fc.nat(), any, edges), (n) =>
        expect(estimateNumberTokens(n)).toBe(numberTokensOfText(n)),
      ),
      { numRuns: 20_000 },
    );
  });
});
