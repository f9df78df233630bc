import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { PinnedFiles, pinnedRunner } from '../../../main/core/trust/pinned-runner.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import { noSecrets } from '../../fixtures/stubs.js';

describe('a trusted run runs the command files it started with', () => {
  it('refuses a command whose script changed since the run started, naming it, and runs it again once it is back', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pf-pinned-'));
    writeFileSync(
      path.join(root, 'tools.yaml'),
      'say:\n  kind: command\n  description: d\n  command: [node, say.mjs]\n  parameters: {type: object}\n',
    );
    const original = "process.stdout.write('honest')";
    writeFileSync(path.join(root, 'say.mjs'), original);
    const workspace = await loadWorkspace(root);
    const tool = workspace.tools.get('say')!;
    const runner = pinnedRunner(
      createToolRunner({ workspaceRoot: root, secrets: noSecrets }),
      new PinnedFiles(root, workspace.tools.list(), workspace.mcpServers ?? []),
    );
    const signal = new AbortController().signal;
    expect(await runner.run(tool, {}, signal)).toBe('honest');
    writeFileSync(path.join(root, 'say.mjs'), "process.stdout.write('pulled in by git')");
    await expect(runner.run(tool, {}, signal)).rejects.toThrow(
      /say\.mjs changed since this run started, so the command does not run/,
    );
    writeFileSync(path.join(root, 'say.mjs'), original);
    expect(await runner.run(tool, {}, signal)).toBe('honest');
  });
});
