/**
 * Runs in every test file before its imports: the service's logger is silent, as testConfig's
 * LOG_LEVEL says, so a green run prints only results. A test that expects an error or a warning
 * captures the lines (test/support/logs.ts) and asserts on them.
 */
import { configureLogger } from '../../services/platform/logger';

configureLogger({ logLevel: 'silent' });
