import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childSearchPath } from '../../../main/core/tools/child-path.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import type { ToolSpec } from '../../../main/core/tools/tool-spec.js';
import { noSecrets } from '../../fixtures/stubs.js';

const hostPath = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = hostPath;
});

describe("a tool's PATH", () => {
  it('keeps only absolute entries', () => {
    expect(childSearchPath('/usr/bin::node_modules/.bin:.:/bin', 'linux')).toBe('/usr/bin:/bin');
    expect(childSearchPath('C:\\Windows;.\\bin;;D:\\tools', 'win32')).toBe('C:\\Windows;D:\\tools');
    expect(childSearchPath(undefined)).toBeUndefined();
  });

  it('a relative entry of the host PATH cannot make `node` a workspace file', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pf-child-path-'));
    mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
    const fake = path.join(root, 'node_modules', '.bin', 'node');
    writeFileSync(fake, '#!/bin/sh\necho FAKE NODE\n');
    chmodSync(fake, 0o755);
    writeFileSync(path.join(root, 'tool.mjs'), "process.stdout.write('real node')");
    process.env['PATH'] =
      `node_modules/.bin${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${hostPath ?? ''}`;
    const tool: ToolSpec = {
      alias: 't',
      description: 'd',
      parameters: { type: 'object' },
      trust: 'untrusted',
      approval: 'ask',
      taintCheck: true,
      settings: { kind: 'command', command: ['node', 'tool.mjs'] },
      source: 'tools.yaml',
    };
    const runner = createToolRunner({ workspaceRoot: root, secrets: noSecrets });
    expect(await runner.run(tool, {}, new AbortController().signal)).toBe('real node');
  });
});
