/**
 * A run's call to a Streamable HTTP MCP server the person has not signed in to, end to end: the
 * failed call in the conversation says why and offers that server's sign-in right there (main
 * opens the browser on the person's press, never by itself); nothing is retried by itself, and the
 * next run finds the server's tool. The authorization server is a loopback fixture
 * (test/node/mcp/fixtures/oauth-fixture.ts) and the system browser a stand-in that follows its
 * redirects back.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standInBrowser } from '../fixtures/stand-in-browser.js';
import { startOAuthFixture, type OAuthFixture } from '../node/mcp/fixtures/oauth-fixture.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { clippedInside } from './page-helpers.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

const WHOAMI = `local ok, result = pcall(tools.call, 'web.whoami', {})
log(ok and ('whoami: ' .. result) or tostring(result))
`;

describe('studio: a call that failed for want of a sign-in offers the sign-in on the call', () => {
  let folder = '';
  let oauth: OAuthFixture;
  const studio = new StudioHarness({
    chooseFolder: async () => folder,
    viewport: { width: 1024, height: 700 },
    openExternal: (url) => standInBrowser(url).then(() => undefined),
  });
  const conversation = () => studio.page.getByRole('log', { name: 'Conversation' });
  const call = () => conversation().getByRole('article', { name: 'Tool call call-1' });

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-mcp-sign-in-call-'));
    oauth = await startOAuthFixture();
    await mkdir(path.join(folder, 'agents'));
    await writeFile(path.join(folder, 'agents', 'whoami.lua'), WHOAMI);
    await writeFile(path.join(folder, 'tools.yaml'), `web:\n  kind: mcp\n  url: ${oauth.mcpUrl}\n`);
    await studio.open();
    studio.page.setDefaultTimeout(20_000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/whoami.lua' }).waitFor();
    await studio.trustWorkspace();
  });
  afterAll(async () => {
    await studio.close();
    await oauth.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('says why the call failed and offers the sign-in to that server, opening nothing by itself', async () => {
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.showRunTab('Conversation');
    await call().locator('.error-text').waitFor();
    expect(await call().locator('.error-text').textContent()).toBe(
      'unknown-tool: tools.call: tool "web.whoami" is not available: MCP server "web" needs you to sign in; sign in to "web" from its entry under MCP servers in the explorer',
    );
    const login = call().getByRole('group', { name: 'Sign-in of MCP server web' });
    await login.getByText('Not signed in.').waitFor();
    const signIn = login.getByRole('button', { name: 'Sign in to MCP server web' });
    expect(await signIn.textContent()).toBe('Sign in to MCP server web…');
    // Sign-out belongs to the explorer: the failed call offers the sign-in only.
    expect(await login.getByRole('button', { name: /^Sign out/ }).count()).toBe(0);
    expect(studio.opened).toEqual([]);
    expect(oauth.hits.authorize).toBe(0);
    expect(await studio.page.evaluate(clippedInside('[aria-label="Tool call call-1"]', 'box'))).toEqual([]);
    await expectNoSeriousAxeViolations(studio.page, 'a failed call offering the sign-in');
    await studio.screenshot('call-needs-sign-in');
  });

  it('signs in on the press, says nothing was retried, and the next run finds the tool', async () => {
    const login = call().getByRole('group', { name: 'Sign-in of MCP server web' });
    await login.getByRole('button', { name: 'Sign in to MCP server web' }).click();
    await login
      .getByText('Signed in. The call is not retried by itself: run the agent again, or fork from this call.')
      .waitFor();
    expect(studio.opened).toHaveLength(1);
    expect(new URL(studio.opened[0]!).origin).toBe(oauth.asUrl);
    // The failed call stays as it was, and no run started.
    expect(await call().locator('.state-badge').textContent()).toBe('failed');
    expect(await studio.page.locator('.run-status .status-pill').textContent()).toBe('ok');
    // Never a token in the page.
    const html = await studio.page.content();
    for (const token of oauth.issued) expect(html).not.toContain(token);
    expect(await studio.page.evaluate(clippedInside('[aria-label="Tool call call-1"]', 'box'))).toEqual([]);

    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await studio.showRunTab('Approvals');
    await studio.waitForApprovalCards(1);
    const card = studio.page.locator('.approval-card').first();
    expect(await card.getByRole('heading').textContent()).toBe('web.whoami call-1');
    await pressWhenArmed({ card, button: card.getByRole('button', { name: 'A Approve' }), done: 'card-gone' });
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.showRunTab('Conversation');
    await expect.poll(() => call().locator('.state-badge').textContent()).toBe('done');
    expect(
      await call()
        .getByRole('group', { name: /^Sign-in/ })
        .count(),
    ).toBe(0);
    expect(oauth.mcpAuthorizations.at(-1)).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });

  it("a recording's marker naming a server this workspace does not have offers nothing", async () => {
    // The first run's transcript, copied as another run whose failed call names "ghost": a cloned
    // recording can say anything, and the studio only looks the name up.
    const runs = path.join(folder, 'runs');
    const first = (await readdir(runs)).filter((name) => name.endsWith('.jsonl')).sort()[0]!;
    const runId = first.slice(0, -'.jsonl'.length);
    const forgedId = `${runId}-forged`;
    const text = await readFile(path.join(runs, first), 'utf8');
    expect(text).toContain('"signIn":"web"');
    await writeFile(
      path.join(runs, `${forgedId}.jsonl`),
      text.replaceAll(runId, forgedId).replaceAll('"signIn":"web"', '"signIn":"ghost"'),
    );
    // Opened again, the folder's history is read from disk (main does not watch runs/); the view
    // is chosen once main has answered the open.
    const opens = () => studio.calls.filter((made) => made.method === 'workspace:open' && made.ok).length;
    const opened = opens();
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await studio.page.getByRole('combobox', { name: 'Type to filter the actions' }).fill('Open a folder…');
    await studio.page.keyboard.press('Enter');
    await expect.poll(opens).toBe(opened + 1);
    await studio.page.locator('.workspace-area[aria-busy="true"]').waitFor({ state: 'detached' });
    const lookups = () => studio.calls.filter((made) => made.method === 'mcp:login-state');
    const before = lookups().length;
    await studio.page.getByRole('button', { name: /^Runs history/ }).click();
    await studio.page
      .getByRole('table', { name: 'Runs' })
      .getByRole('button', { name: `Open ${forgedId}` })
      .click();
    await call().locator('.error-text').waitFor();
    expect(await call().locator('.state-badge').textContent()).toBe('failed');
    // The name is looked up and found wanting: no offer, and no error about it either.
    await expect.poll(() => lookups().length).toBeGreaterThan(before);
    expect(lookups().at(-1)?.ok).toBe(false);
    expect(
      await call()
        .getByRole('group', { name: /^Sign-in/ })
        .count(),
    ).toBe(0);
    expect(await call().getByRole('alert').count()).toBe(0);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
