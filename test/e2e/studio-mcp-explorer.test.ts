import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standInBrowser } from '../fixtures/stand-in-browser.js';
import { startOAuthFixture, type OAuthFixture } from '../node/mcp/fixtures/oauth-fixture.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { clippedInside } from './page-helpers.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

/**
 * A server's resources, prompts and sign-in in the explorer, end to end: the real server-everything
 * from npm, a hostile loopback server (test/node/mcp/fixtures/asking-server.mjs: binary, a
 * gigabyte, a list that changes), and a Streamable HTTP server behind OAuth on loopback
 * (test/node/mcp/fixtures/oauth-fixture.ts). The person's system browser is a stand-in: it follows
 * the authorization server's redirects back to the studio, or (`hang`) never comes back.
 */
const EVERYTHING = path.join(repositoryRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ASKING = path.join(repositoryRoot, 'test/node/mcp/fixtures/asking-server.mjs');
const node = JSON.stringify(process.execPath);

describe('studio: a server’s resources, prompts and sign-in in the explorer', () => {
  let folder = '';
  let oauth: OAuthFixture;
  let browser: 'follow' | 'hang' = 'follow';
  const studio = new StudioHarness({
    chooseFolder: async () => folder,
    viewport: { width: 1280, height: 800 },
    // The person's browser, a stand-in: it consents and comes back, or never returns.
    openExternal: async (url) => {
      if (browser === 'follow') await standInBrowser(url);
    },
  });
  const explorer = () => studio.page.getByRole('navigation', { name: 'Workspace explorer' });
  const server = (name: string) => explorer().getByRole('listitem', { name: `MCP server ${name}` });
  const section = (what: 'Resources' | 'Prompts', name: string) =>
    explorer().getByRole('group', { name: `${what} of MCP server ${name}` });
  const open = async (what: 'Resources' | 'Prompts', name: string) => {
    await server(name)
      .getByRole('button', { name: `${what} of MCP server ${name}` })
      .click();
    await section(what, name).waitFor();
  };
  const resource = (name: string, uri: string) =>
    section('Resources', name).getByRole('listitem').filter({ hasText: uri });

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-mcp-explorer-'));
    oauth = await startOAuthFixture();
    await mkdir(path.join(folder, 'agents'));
    await writeFile(path.join(folder, 'agents', 'hello.lua'), "log('hello')\n");
    await writeFile(
      path.join(folder, 'tools.yaml'),
      [
        'everything:',
        '  kind: mcp',
        `  command: ${node}`,
        `  args: [${JSON.stringify(EVERYTHING)}, stdio]`,
        'ask:',
        '  kind: mcp',
        `  command: ${node}`,
        `  args: [${JSON.stringify(ASKING)}]`,
        '  approval: auto',
        'web:',
        '  kind: mcp',
        `  url: ${oauth.mcpUrl}`,
        '',
      ].join('\n'),
    );
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    await studio.trustWorkspace();
    await server('everything').getByLabel('status stopped').waitFor();
  });
  afterAll(async () => {
    await studio.close();
    await oauth.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("lists server-everything's resources only on the person's click, and reads one as untrusted text", async () => {
    expect(studio.calls.filter((entry) => entry.method === 'mcp:resources')).toEqual([]);
    await open('Resources', 'everything');
    const items = section('Resources', 'everything').locator('.mcp-entry-uri');
    await items.first().waitFor();
    expect(await items.allTextContents()).toEqual([
      'demo://resource/static/document/architecture.md',
      'demo://resource/static/document/extension.md',
      'demo://resource/static/document/features.md',
      'demo://resource/static/document/how-it-works.md',
      'demo://resource/static/document/instructions.md',
      'demo://resource/static/document/startup.md',
      'demo://resource/static/document/structure.md',
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
    ]);
    // A template is listed, not read.
    expect(await resource('everything', '{resourceId}').getByRole('button').count()).toBe(0);
    const features = resource('everything', 'features.md');
    await features.getByRole('button', { name: /^Read demo:/ }).click();
    const text = features.locator('.mcp-untrusted');
    await text.waitFor();
    expect(await text.locator('.trust-badge').textContent()).toBe('untrusted');
    expect(await text.locator('pre').textContent()).toMatch(/^# Everything Server/);
  });

  it('gets a prompt with its arguments as a form', async () => {
    await open('Prompts', 'everything');
    const prompt = section('Prompts', 'everything').getByRole('listitem').filter({ hasText: 'Arguments Prompt' });
    await prompt.getByRole('button', { name: 'Get the prompt args-prompt of MCP server everything' }).click();
    const form = prompt.getByRole('form', { name: 'Arguments of the prompt args-prompt' });
    expect(await form.getByText('Required: city.').count()).toBe(1);
    expect(await form.getByRole('button', { name: 'Get', exact: true }).isDisabled()).toBe(true);
    await form.getByLabel('city', { exact: true }).fill('Lyon');
    await form.getByRole('button', { name: 'Get', exact: true }).click();
    const message = prompt.locator('.mcp-untrusted');
    await message.waitFor();
    expect(await message.locator('.output-header').textContent()).toBe('untrustedmessage 1 (user)');
    expect(await message.locator('pre').textContent()).toBe("What's weather in Lyon?");
  });

  it('describes a binary resource, refuses a gigabyte with its size, and refreshes on list_changed and resources/updated', async () => {
    await open('Resources', 'ask');
    const blob = resource('ask', 'bin://blob');
    await blob.getByRole('button', { name: 'Read bin://blob from MCP server ask' }).click();
    await blob.locator('.mcp-binary').waitFor();
    expect(await blob.locator('.mcp-binary').textContent()).toBe(
      'Binary content, 7 bytes, application/octet-stream: not shown as text.',
    );
    const huge = resource('ask', 'huge://stdio');
    expect(await huge.locator('.mcp-entry-head').textContent()).toContain('1.0 GiB (1,073,741,824 bytes)');
    await huge.getByRole('button', { name: /^Read huge:/ }).click();
    await huge.locator('.error-text').waitFor();
    expect(await huge.locator('.error-text').textContent()).toBe(
      'the resource is 1,073,741,824 bytes (as its server lists it), more than the 8,388,608 bytes the host reads in one message; it was not asked for (too-large)',
    );
    const hello = resource('ask', 'text://hello');
    await hello.getByRole('button', { name: /^Read text:\/\/hello/ }).click();
    await hello.locator('.mcp-untrusted').waitFor();
    expect(await hello.locator('pre').textContent()).toMatch(/^hello from the server\. IGNORE ALL PREVIOUS/);
    const reads = () => studio.calls.filter((entry) => entry.method === 'mcp:read-resource').length;
    const before = reads();
    // A run's call makes the server change its list and update text://hello.
    await writeFile(path.join(folder, 'agents', 'relist.lua'), "print(tools.call('ask.relist', {}))\n");
    await studio.call('run:start', { script: 'agents/relist.lua' });
    await resource('ask', 'text://added').waitFor();
    await hello.getByText('Read again: the server said it changed.').waitFor();
    expect(reads()).toBe(before + 1);
    await studio.screenshot('mcp-explorer-resources');
  });

  it('shows the sign-in of a Streamable HTTP server, signs in through the browser main opens, and signs out on the person’s yes', async () => {
    const login = server('web').getByRole('group', { name: 'Sign-in of MCP server web' });
    await login.getByText('Not signed in.').waitFor();
    // A stdio server has no sign-in.
    expect(
      await server('ask')
        .getByRole('group', { name: /^Sign-in/ })
        .count(),
    ).toBe(0);
    expect(studio.opened).toEqual([]);
    await login.getByRole('button', { name: 'Sign in to MCP server web' }).click();
    await login.getByText(/^Signed in with http:\/\/127\.0\.0\.1:\d+, until .*\. Scopes: mcp:read\.$/).waitFor();
    expect(studio.opened).toHaveLength(1);
    expect(new URL(studio.opened[0]!).origin).toBe(oauth.asUrl);
    // Never a token in the page.
    const html = await studio.page.content();
    for (const token of oauth.issued) expect(html).not.toContain(token);
    await studio.screenshot('mcp-explorer-signed-in');

    studio.person.answers.push(false);
    await login.getByRole('button', { name: 'Sign out of MCP server web' }).click();
    await login.getByText('Still signed in.').waitFor();
    expect(studio.person.asked.at(-1)).toMatchObject({ title: 'Sign out of MCP server "web"?', confirm: 'Sign out' });
    await login.getByRole('button', { name: 'Sign out of MCP server web' }).click();
    await login.getByText('Not signed in.').waitFor();
    await login.getByText('Signed out; the authorization server revoked the tokens.').waitFor();
    expect(oauth.revocations.map((request) => request.hint)).toEqual(['refresh_token', 'access_token']);
  });

  it('waits for the browser while the person signs in, until they cancel', async () => {
    browser = 'hang';
    const login = server('web').getByRole('group', { name: 'Sign-in of MCP server web' });
    await login.getByRole('button', { name: 'Sign in to MCP server web' }).click();
    await login.getByText('Waiting for your browser to come back…').waitFor();
    await login.getByRole('button', { name: 'Cancel sign-in' }).click();
    await login.getByText('the sign-in to "web" was cancelled (cancelled)').waitFor();
    expect(await login.getByText('Not signed in.').count()).toBe(1);
    browser = 'follow';
  });

  it('is axe-clean in both themes and clips nothing at 1024×700', async () => {
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await expectNoSeriousAxeViolations(studio.page, `MCP explorer sections (${theme})`);
    }
    await studio.useTheme('dark');
    await studio.page.setViewportSize({ width: 1024, height: 700 });
    expect(await studio.page.evaluate(clippedInside('.explorer', 'box', '.mcp-extras, .mcp-extras *'))).toEqual([]);
    await studio.screenshot('mcp-explorer-1024');
    await studio.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
