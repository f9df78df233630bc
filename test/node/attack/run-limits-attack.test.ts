import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractStudio } from '../studio/contract-studio.js';

/**
 * A page script may start runs (no press needed) and write agents: it must not also lift a run's
 * Lua heap or CPU budget, or a few runs of a heap-hungry script would exhaust the host.
 */
describe('a page script cannot raise the limits of the runs it starts', () => {
  it.each([
    [{ memoryLimitMiB: 1e7 }, /memoryLimitMiB at most 256/],
    [{ cpuLimitSeconds: 1e9 }, /cpuLimitSeconds at most 30/],
    [{ memoryLimitMiB: 257, cpuLimitSeconds: 31 }, /cpuLimitSeconds at most 30, memoryLimitMiB at most 256/],
  ])('refuses %j, naming the most each may be', async (limits, message) => {
    const s = contractStudio();
    const state = await s.call('workspace:open-example', {});
    writeFileSync(
      path.join(state.root, 'agents', 'hog.lua'),
      "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1024) end\n",
    );
    const refused = await s.fail('run:start', { script: 'agents/hog.lua', ...limits });
    expect(refused.code).toBe('run-setup');
    expect(refused.message).toMatch(/^the studio only lowers a run's limits, never raises them: /);
    expect(refused.message).toMatch(message);
  });

  it('lowers them: a heap cap under the default ends the hungry script at its limit', async () => {
    const s = contractStudio();
    const state = await s.call('workspace:open-example', {});
    writeFileSync(
      path.join(state.root, 'agents', 'hog.lua'),
      "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1024) end\n",
    );
    const { runId } = await s.call('run:start', { script: 'agents/hog.lua', memoryLimitMiB: 16 });
    const end = await s.ended(runId);
    expect(end.status).toBe('limit');
    expect(end.error?.kind).toBe('memory');
  });
});
