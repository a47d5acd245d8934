/**
 * The logger takes its level from Config (not from the environment at import), and the Temporal
 * Runtime's logs go through it at that level, as JSON lines of ours.
 */
import { configureLogger, logger, requestLogger } from '../../../services/platform/logger';
import { coreLevel, temporalLogger } from '../../../services/platform/temporal-runtime';
import { testConfig } from '../../support/config';
import { captureLogs } from '../../support/logs';

describe('logger', () => {
  afterEach(() => configureLogger({ logLevel: 'silent' }));

  it('is silent in tests, and logs at the level Config gives it, naming the role', () => {
    expect(logger.level).toBe('silent');
    const logs = captureLogs('silent');
    try {
      logger.error('not written');
      configureLogger(testConfig({ LOG_LEVEL: 'warn' }), 'worker');
      logger.info('below the level');
      logger.warn({ meetingId: 'm1' }, 'written');
      requestLogger('r1').error('from a request');
    } finally {
      logs.stop();
    }
    expect(logs.lines.map((l) => [l.level, l.msg, l.role, l.meetingId ?? l.requestId])).toEqual([
      ['warn', 'written', 'worker', 'm1'],
      ['error', 'from a request', 'worker', 'r1'],
    ]);
    expect(logs.lines[0]).toMatchObject({
      service: 'meeting-intelligence',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });
});

describe('the Temporal Runtime logger', () => {
  it("writes the SDK's lines through ours, at the level ours has when the line is written", () => {
    const sdk = temporalLogger(logger);
    const logs = captureLogs('warn');
    try {
      sdk.info('Worker state changed', { state: 'RUNNING', sdkComponent: 'worker' });
      sdk.warn('Activity failed', { attempt: 2, sdkComponent: 'worker' });
      sdk.log('ERROR', 'core said so', { sdkComponent: 'core' });
      logger.level = 'info';
      sdk.info('Worker state changed', { state: 'STOPPED' });
      sdk.debug('too fine');
    } finally {
      logs.stop();
    }
    expect(logs.lines.map((l) => [l.level, l.msg, l.component])).toEqual([
      ['warn', 'Activity failed', 'temporal'],
      ['error', 'core said so', 'temporal'],
      ['info', 'Worker state changed', 'temporal'],
    ]);
    expect(logs.lines[0]).toMatchObject({ attempt: 2, sdkComponent: 'worker' });
    expect(logs.lines[2]).toMatchObject({ state: 'STOPPED' });
  });

  it('filters the native core at LOG_LEVEL (ERROR at most, its highest)', () => {
    expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].map(coreLevel)).toEqual([
      'TRACE',
      'DEBUG',
      'INFO',
      'WARN',
      'ERROR',
      'ERROR',
      'ERROR',
    ]);
  });
});
