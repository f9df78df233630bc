import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const home = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-home-')));
vi.mock('node:os', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:os')>();
  return { ...actual, default: { ...actual, homedir: () => home }, homedir: () => home };
});
const { RuleStore } = await import('../../../main/core/rules/rule-store.js');

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the rules file in the default config folder, for a script run from the home folder', () => {
  const config = path.join(home, '.config', 'PromptForge Studio');
  mkdirSync(config, { recursive: true, mode: 0o700 });
  writeFileSync(
    path.join(config, 'approval-rules.yaml'),
    'version: 1\nrules:\n  - { id: mine, decision: allow, workspace: "*", tools: "echo" }\n',
    { mode: 0o600 },
  );

  it('applies, with no warning: the home folder with no catalog is nobody’s clone', async () => {
    const snapshot = await new RuleStore(config).load(home);
    expect(snapshot.warnings).toEqual([]);
    expect(snapshot.state).toBe('ok');
  });

  it('is still ignored when the home folder is a workspace (a catalog there could be a clone’s)', async () => {
    writeFileSync(path.join(home, 'tools.yaml'), 'echo2:\n  kind: builtin\n  builtin: echo\n');
    const snapshot = await new RuleStore(config).load(home);
    expect(snapshot.state).toBe('ignored');
    expect(snapshot.warnings.join('\n')).toMatch(/is inside the workspace .*its rules are ignored/);
  });
});
