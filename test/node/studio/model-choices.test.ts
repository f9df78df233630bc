import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { currentConfigDir } from '../../../main/core/trust/config-dir.js';
import { MODEL_CHOICES_FILE, ModelChoices } from '../../../main/core/studio/model-choices.js';
import { contractStudio, type ContractStudio } from './contract-studio.js';

/** A workspace folder with `files` (relative path → text). */
function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-models-'));
  for (const [relative, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  }
  return root;
}

/** Every file of a folder with its bytes: what git would share. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else out[path.relative(root, file)] = readFileSync(file, 'utf8');
    }
  };
  walk(root);
  return out;
}

// Models on this machine's loopback (no key needed, nothing leaves it); the runs below only start.
const MODELS_A = `# the team's models
scripted:
  provider: ollama
  model: scripted-model
  baseUrl: http://127.0.0.1:9/v1
other:
  provider: ollama
  model: other-model
  baseUrl: http://127.0.0.1:9/v1
`;
const MODELS_B = `local:
  provider: ollama
  model: llama
  baseUrl: http://127.0.0.1:9/v1
`;
const AGENT = `log('started')`;

async function runStart(s: ContractStudio, script: string, model?: string) {
  const { runId } = await s.call('run:start', { script, ...(model !== undefined && { model }) });
  const end = await s.ended(runId);
  const start = s
    .runEvents(runId)
    .find((event): event is Extract<RunEvent, { type: 'run-start' }> => event.type === 'run-start');
  return { start, end };
}

describe('models chosen per agent, per workspace, in the config folder', () => {
  it('a choice is kept for the agent in the config folder and changes no workspace file', async () => {
    const root = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT, 'agents/b.lua': AGENT });
    const before = snapshot(root);
    const s = contractStudio();
    const opened = await s.openFolder(root);
    expect(opened.agentModels['agents/a.lua']).toEqual({
      default: null,
      defaultFrom: null,
      chosen: null,
      unavailable: null,
    });
    expect(await s.call('model:choose', { path: 'agents/a.lua', model: 'scripted' })).toEqual({ chosen: 'scripted' });
    const state = await s.next('workspace-changed', (ws) => ws.agentModels['agents/a.lua']?.chosen === 'scripted');
    // Per agent: b keeps its default.
    expect(state.agentModels['agents/b.lua']?.chosen).toBeNull();
    expect(snapshot(root)).toEqual(before);
    const kept = JSON.parse(readFileSync(path.join(currentConfigDir(), MODEL_CHOICES_FILE), 'utf8')) as {
      workspaces: Record<string, { agents: Record<string, string> }>;
    };
    expect(Object.values(kept.workspaces).some((entry) => entry.agents['agents/a.lua'] === 'scripted')).toBe(true);

    // Another studio (a restart) opens the workspace with the choice remembered.
    const again = contractStudio();
    expect((await again.openFolder(root)).agentModels['agents/a.lua']?.chosen).toBe('scripted');
    // The run takes the model the list shows.
    const { start, end } = await runStart(again, 'agents/a.lua', 'scripted');
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    expect(start?.model?.alias).toBe('scripted');
    // null: the default again.
    expect(await again.call('model:choose', { path: 'agents/a.lua', model: null })).toEqual({ chosen: null });
  });

  it('a workspace switch never carries a choice the new workspace does not define', async () => {
    const a = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT });
    const b = workspace({ 'models.yaml': MODELS_B, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(a);
    await s.call('model:choose', { path: 'agents/a.lua', model: 'scripted' });
    const opened = await s.openFolder(b);
    // Same agent path, other workspace: no choice there.
    expect(opened.agentModels['agents/a.lua']).toEqual({
      default: null,
      defaultFrom: null,
      chosen: null,
      unavailable: null,
    });
    const { end } = await runStart(s, 'agents/a.lua');
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    // A page that still sends the old choice gets the studio's words, not the CLI's flag.
    const refused = await s.fail('run:start', { script: 'agents/a.lua', model: 'scripted' });
    expect(refused.message).toBe(
      'the model "scripted" is not in this workspace; models.yaml defines local; pick one in the model list above the editor',
    );
    expect(refused.code).toBe('unknown-model');
    expect(refused.message).not.toMatch(/--/);
    const chooseRefused = await s.fail('model:choose', { path: 'agents/a.lua', model: 'scripted' });
    expect(chooseRefused.code).toBe('unknown-model');
    // Back in the first workspace the choice is still there.
    expect((await s.openFolder(a)).agentModels['agents/a.lua']?.chosen).toBe('scripted');
  });

  it('a broken models.yaml while a choice points into it: a clear message, no crash, runs still start', async () => {
    const root = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(root);
    await s.call('model:choose', { path: 'agents/a.lua', model: 'other' });
    writeFileSync(path.join(root, 'models.yaml'), 'other:\n  provider: ollama\n  model: [unclosed\n');
    const broken = await s.next('workspace-changed', (ws) => ws.agentModels['agents/a.lua']?.unavailable !== null);
    const info = broken.agentModels['agents/a.lua']!;
    expect(info.chosen).toBeNull();
    expect(info.unavailable?.alias).toBe('other');
    expect(info.unavailable?.message).toMatch(
      /^The model "other" you chose for this agent is not in this workspace's models\.yaml \(models\.yaml has an error at line \d+: .+\)\. Runs use the agent's default until you pick another/,
    );
    const { end } = await runStart(s, 'agents/a.lua');
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    // Fixed again: the choice comes back by itself.
    writeFileSync(path.join(root, 'models.yaml'), MODELS_A);
    const fixed = await s.next('workspace-changed', (ws) => ws.agentModels['agents/a.lua']?.chosen === 'other');
    expect(fixed.agentModels['agents/a.lua']?.unavailable).toBeNull();
  });

  it('a config file that is not valid JSON is reported, and nothing breaks', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'pf-choices-config-'));
    const store = new ModelChoices(config);
    writeFileSync(store.file, '{ not json', { mode: 0o600 });
    const read = await store.read('/nowhere');
    expect(read.choices).toEqual({});
    expect(read.problem).toContain(MODEL_CHOICES_FILE);
    await expect(store.choose('/nowhere', 'agents/a.lua', 'x')).rejects.toThrow(/not valid JSON/);
  });

  it('keeps at most 200 workspaces and drops the one chosen in longest ago', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'pf-choices-config-'));
    const store = new ModelChoices(config);
    for (let i = 0; i < 205; i += 1)
      await store.choose(`/ws/${i}`, 'agents/a.lua', 'm', new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    const file = JSON.parse(readFileSync(store.file, 'utf8')) as { workspaces: Record<string, unknown> };
    expect(Object.keys(file.workspaces)).toHaveLength(200);
    expect((await store.read('/ws/0')).choices).toEqual({});
    expect((await store.read('/ws/204')).choices).toEqual({ 'agents/a.lua': 'm' });
  }, 60_000);

  it('refuses what is not an agent or not a model, and names longer than a model alias can be', async () => {
    const root = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(root);
    expect((await s.fail('model:choose', { path: 'agents/none.lua', model: 'scripted' })).code).toBe('not-found');
    expect((await s.fail('model:choose', { path: '../x.lua', model: 'scripted' })).code).toBe('invalid-payload');
    expect((await s.fail('model:choose', { path: 'agents/a.lua', model: 'x'.repeat(5000) })).code).toBe(
      'invalid-payload',
    );
    const rtl = await s.fail('model:choose', { path: 'agents/a.lua', model: '\u202egnp.exe' });
    expect(rtl.code).toBe('unknown-model');
  });
});

describe("make this the agent's default: written to promptforge.yaml on purpose", () => {
  it('writes agents: <path>: model, keeps comments, and the choice is then the default', async () => {
    const settings = '# team settings\ndefaultModel: other # the cheap one\n';
    const root = workspace({ 'models.yaml': MODELS_A, 'promptforge.yaml': settings, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(root);
    expect((await s.call('workspace:state', {}))?.agentModels['agents/a.lua']).toMatchObject({
      default: 'other',
      defaultFrom: 'workspace',
    });
    await s.call('model:choose', { path: 'agents/a.lua', model: 'scripted' });
    expect(await s.call('model:make-default', { path: 'agents/a.lua', model: 'scripted' })).toEqual({ saved: true });
    const written = readFileSync(path.join(root, 'promptforge.yaml'), 'utf8');
    expect(written.startsWith(settings)).toBe(true);
    expect(written).toMatch(/agents:\n\s+agents\/a\.lua:\n\s+model: scripted\n/);
    const state = await s.call('workspace:state', {});
    expect(state?.agentModels['agents/a.lua']).toEqual({
      default: 'scripted',
      defaultFrom: 'agent',
      chosen: null,
      unavailable: null,
    });
    // The CLI's runs get it too: it is the workspace's setting now.
    const { start } = await runStart(s, 'agents/a.lua');
    expect(start?.model?.alias).toBe('scripted');
  });

  it('creates promptforge.yaml when there is none, and refuses to touch one that does not parse', async () => {
    const root = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(root);
    await s.call('model:make-default', { path: 'agents/a.lua', model: 'other' });
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toMatch(
      /agents:\n\s+agents\/a\.lua:\n\s+model: other/,
    );

    const broken = 'defaultModel: [other\n';
    writeFileSync(path.join(root, 'promptforge.yaml'), broken);
    await s.next('workspace-changed', (ws) => ws.problems.some((problem) => problem.file === 'promptforge.yaml'));
    const refused = await s.fail('model:make-default', { path: 'agents/a.lua', model: 'scripted' });
    expect(refused.code).toBe('catalog-invalid');
    expect(refused.message).toMatch(/^promptforge\.yaml was not changed: line \d+: /);
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toBe(broken);
  });

  it('a renamed agent keeps its choice; a deleted one forgets it', async () => {
    const root = workspace({ 'models.yaml': MODELS_A, 'agents/a.lua': AGENT });
    const s = contractStudio();
    await s.openFolder(root);
    await s.call('model:choose', { path: 'agents/a.lua', model: 'scripted' });
    await s.call('file:rename', { path: 'agents/a.lua', name: 'renamed' });
    const state = await s.call('workspace:state', {});
    expect(state?.agentModels['agents/renamed.lua']?.chosen).toBe('scripted');
    await s.call('file:delete', { path: 'agents/renamed.lua' });
    await s.call('file:create', { name: 'renamed' });
    expect((await s.call('workspace:state', {}))?.agentModels['agents/renamed.lua']?.chosen).toBeNull();
  });
});
