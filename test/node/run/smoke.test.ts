import { describe, expect, it } from 'vitest';
import { runScript } from './run-harness.js';

describe('smoke', () => {
  it('runs a script and logs', async () => {
    const h = await runScript(`log('hi', 1, true) print(tools.call('echo', {text='yo'}))`);
    expect(h.result.error).toBeUndefined();
    expect(h.logs).toEqual(['hi\t1\ttrue', 'yo']);
  });
});
