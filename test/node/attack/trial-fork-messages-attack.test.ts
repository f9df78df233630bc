import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractStudio } from '../studio/contract-studio.js';

/** Refusals that do not say what is wrong, found by red-teaming tool:trial and run:fork. */

describe('tool:trial of an MCP tool whose server does not start', () => {
  it('says the server failed, not that the workspace has no such tool', async () => {
    const s = contractStudio();
    const root = mkdtempSync(path.join(tmpdir(), 'pf-attack-mcp-down-'));
    mkdirSync(path.join(root, 'agents'));
    writeFileSync(
      path.join(root, 'tools.yaml'),
      `srv:\n  kind: mcp\n  description: a server that exits at once\n  command: ${JSON.stringify(process.execPath)}\n  args: ["-e", "process.exit(1)"]\n`,
    );
    await s.openFolder(root);
    const error = await s.fail('tool:trial', { alias: 'srv.echo', arguments: { text: 'x' } });
    expect(error.message).not.toMatch(/no tool "srv\.echo" in this workspace's catalog/);
    expect(error.message).toMatch(/srv/);
  });
});

describe('run:fork of a tool trial', () => {
  it('says a trial cannot be forked, instead of "no such script" with an absolute path', async () => {
    const s = contractStudio();
    const { root } = await s.call('workspace:open-example', {});
    const { runId } = await s.call('tool:trial', { alias: 'echo', arguments: { text: 'hi' } });
    await s.ended(runId);
    const step = s.runEvents(runId).find((event) => event.type === 'tool-output')!.seq;
    const error = await s.fail('run:fork', { runId, step });
    expect(error.message).not.toMatch(/there is no such script/);
    expect(error.message).not.toContain(root);
  });
});
