import { describe, expect, it } from 'vitest';
import type { ContractMethodName } from '../../../common/contract.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { studio } from '../studio/studio-harness.js';
import { quietLogger } from '../../fixtures/stubs.js';

/**
 * The contract promises that a call "never throws": every failure is `{ ok: false, error }`. A
 * deeply nested value in a payload (a person pasting deep JSON into the trial's argument editor,
 * or a fork's edited calls) overflowed zod's recursive check, and the call rejected instead.
 */

/** `{ a: { a: ... 1 } }`, `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

describe('a payload nested 10,000 levels deep', () => {
  it.each<[ContractMethodName, (deep: unknown) => unknown]>([
    ['tool:trial', (deep) => ({ alias: 'echo', arguments: { text: deep } })],
    ['args:check', (deep) => ({ alias: 'echo', arguments: deep })],
    ['run:fork', (deep) => ({ runId: 'missing', step: 3, edit: { calls: [{ name: 'echo', arguments: deep }] } })],
  ])('%s resolves to a clear refusal instead of rejecting', async (method, payload) => {
    const { service } = studio();
    await service.openExample();
    const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
    const result = await dispatchContractCall(handlers, method, payload(nested(10_000)), quietLogger).catch(
      (error: unknown) => ({ rejected: String(error) }),
    );
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).not.toMatch(/Maximum call stack/);
  });
});

describe('a payload with a "__proto__" key', () => {
  it.each<[ContractMethodName, unknown]>([
    ['tool:trial', JSON.parse('{"alias":"echo","arguments":{"text":"hi","__proto__":{"x":1}}}')],
    ['args:check', JSON.parse('{"alias":"echo","arguments":{"text":"hi","nested":[{"__proto__":1}]}}')],
  ])('%s is refused, naming the key, instead of silently dropping it', async (method, payload) => {
    const { service } = studio();
    await service.openExample();
    const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory: '/', service });
    const result = await dispatchContractCall(handlers, method, payload, quietLogger);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-payload' } });
    expect(JSON.stringify(result)).toContain('__proto__');
  });
});
