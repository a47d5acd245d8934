/**
 * Runs in every test file before its imports: the service's logger is silent, as testConfig's
 * LOG_LEVEL says, so a green run prints only results. A test that expects an error or a warning
 * captures the lines (test/support/logs.ts) and asserts on them.
 *
 * ONNX Runtime's native addon (the embedding model) returns tensors' data as typed arrays of Node's
 * own realm, and its JS side checks them with instanceof against the constructors of the realm it was
 * loaded in: jest gives each file a realm of its own, so that check fails there and nowhere else. The
 * file's realm takes Node's constructors of the types the models return, before anything imports
 * onnxruntime.
 */
import { runInThisContext } from 'node:vm';
import { configureLogger } from '../../services/platform/logger';

configureLogger({ logLevel: 'silent' });
for (const name of ['Float32Array', 'BigInt64Array'] as const)
  (globalThis as Record<string, unknown>)[name] = runInThisContext(name);
