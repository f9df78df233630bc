import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineFloor } from '../../../main/cli/node-version.mjs';
import { LINUX_PACKAGES } from '../../../scripts/lib/test-keychain.js';
import { repositoryRoot, run } from './project-copy.js';

const readme = readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
// Where the headless keychain recipe lives: the keychain on each OS.
const keychainDoc = 'docs/providers.md';
const providersDoc = readFileSync(path.join(repositoryRoot, keychainDoc), 'utf8');
const ciScript = readFileSync(path.join(repositoryRoot, '.ci', 'run'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

/** The ```sh blocks of a Markdown text, each with the line it starts on. */
function shellBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i] !== '```sh') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end += 1;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

const keychainRecipes = [
  ...shellBlocks(readme).map((block) => ({ ...block, doc: 'README.md' })),
  ...shellBlocks(providersDoc).map((block) => ({ ...block, doc: keychainDoc })),
].filter(({ code }) => /\b(gnome-keyring-daemon|dbus-run-session)\b|(?<![\w-])secret-tool\b/.test(code));

/** The packages an `apt-get install -y ...` line installs. */
function aptPackages(text: string): string[][] {
  return [...text.matchAll(/apt-get install -y ([a-z0-9 .+-]+)/g)].map((match) => match[1]!.trim().split(/\s+/));
}

describe('the keychain recipes of README and docs/providers.md work when pasted as they are', () => {
  it('keeps commands out of table cells: no Markdown-escaped pipes anywhere in a table', () => {
    const escaped = readme
      .split('\n')
      .map((text, index) => ({ text, line: index + 1 }))
      .filter(({ text }) => text.startsWith('|') && text.includes('\\|'));
    expect(escaped).toEqual([]);
  });

  it('has keychain recipes to run', () => {
    expect(keychainRecipes.length).toBeGreaterThan(0);
  });

  it.runIf(process.platform === 'linux').each(keychainRecipes)(
    '$doc:$line runs verbatim in bash, with no D-Bus session beforehand',
    async ({ code }) => {
      const home = mkdtempSync(path.join(tmpdir(), 'pf-readme-home-'));
      mkdirSync(path.join(home, 'run'), { mode: 0o700 });
      const env: NodeJS.ProcessEnv = {};
      for (const [name, value] of Object.entries(process.env)) {
        if (name === 'DBUS_SESSION_BUS_ADDRESS' || name.startsWith('PROMPTFORGE_TEST_')) continue;
        env[name] = value;
      }
      // A home of its own, so the keyring the recipe creates is not this machine's.
      Object.assign(env, {
        HOME: home,
        XDG_DATA_HOME: path.join(home, 'data'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
        XDG_CACHE_HOME: path.join(home, 'cache'),
        XDG_RUNTIME_DIR: path.join(home, 'run'),
      });
      const result = await run('bash', ['-c', code], { cwd: repositoryRoot, env });
      expect(result.code, `${code}\n${result.stderr}`).toBe(0);
      if (code.includes('promptforge keys status')) expect(result.stdout).toMatch(/^openai\s+not set$/m);
    },
    120_000,
  );
});

describe('README, package.json and .ci/run say the same', () => {
  it('the Node floor: engines, README and the scripts', () => {
    const floor = engineFloor(manifest.engines.node);
    expect(floor).not.toBeNull();
    const [major, minor] = floor!;
    expect(readme).toContain(`the floor is **Node ${major}.${minor}**`);
    expect(readme).toContain(`${major}.${minor} at the least`);
  });

  it('Node 24 from the npm package node@24, in README and CI', () => {
    expect(readme).toContain('npm install --global --prefix ~/.local node@24');
    expect(ciScript).toContain('npm install --global --prefix /opt/node24 node@24');
  });

  it('the Debian packages: README setup, CI, the headless keychain recipe and the test keychain message', () => {
    const inReadme = aptPackages(readme);
    const inCi = aptPackages(ciScript);
    expect(inCi).toHaveLength(1);
    expect(inReadme[0]).toEqual(inCi[0]);
    for (const name of LINUX_PACKAGES.split(' ')) expect(inCi[0]).toContain(name);
    expect(aptPackages(providersDoc)).toContainEqual(LINUX_PACKAGES.split(' '));
  });

  it('CI runs exactly the README test command', () => {
    expect(readme).toContain('npm install && npm test ');
    expect(ciScript.trimEnd().split('\n').at(-1)).toBe('npm test');
    expect(manifest.scripts['test']).toBe('tsx scripts/test.ts');
  });

  it('no variable that Electron 45 ignores is recommended anywhere', () => {
    const found = spawnSync('git', ['grep', '-l', 'ELECTRON_SKIP_BINARY_DOWNLOAD', '--', ':!test/node/setup/'], {
      cwd: repositoryRoot,
      encoding: 'utf8',
    });
    expect(found.stdout).toBe('');
  });
});
