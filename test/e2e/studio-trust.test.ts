import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustStore } from '../../main/core/trust/trust-store.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

// A folder as it comes from a clone: never trusted. Its MCP server is the official filesystem
// server behind a small script that first writes a marker file (outside the workspace), so a
// server that starts leaves a trace even if it dies at once.
const FILESYSTEM = path.join(repositoryRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const node = JSON.stringify(process.execPath);
const MARKER_SERVER = `import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [marker, server, ...rest] = process.argv.slice(2);
writeFileSync(marker, String(process.pid));
process.argv.splice(2, process.argv.length, ...rest);
await import(pathToFileURL(server).href);
`;

const SHOTS = '/tmp/promptforge-trust-shots';

/** A `kind: mcp` entry whose server writes `marker` when it starts. */
function markerServer(name: string, marker: string, extra = ''): string {
  return [
    '',
    `${name}:`,
    '  kind: mcp',
    `  description: Notes in the data folder (${name})`,
    `  command: ${node}`,
    `  args: [tools/marker-server.mjs, ${JSON.stringify(marker)}, ${JSON.stringify(FILESYSTEM)}, ./data]`,
    '  include: [read_text_file, list_directory]',
    extra,
    '',
  ].join('\n');
}

/**
 * Whether anything inside `root` is clipped: cut off by the window's edges, or text cut by its own
 * box (a button or a line whose content is wider than it).
 */
async function clippedParts(root: Locator): Promise<string[]> {
  return root.evaluate((element) => {
    // Runs in the page; the Node-side tsconfig has no DOM types, so they are spelled out here.
    interface Box {
      tagName: string;
      classList: Iterable<string>;
      textContent: string | null;
      clientWidth: number;
      scrollWidth: number;
      closest(selector: string): unknown;
      getBoundingClientRect(): { left: number; right: number; width: number; height: number };
      querySelectorAll(selector: string): Iterable<Box>;
    }
    const page = globalThis as unknown as {
      innerWidth: number;
      getComputedStyle(box: Box): { overflowX: string; overflowY: string };
    };
    const root = element as unknown as Box;
    const found: string[] = [];
    for (const part of [root, ...root.querySelectorAll('*')]) {
      const rect = part.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0 || part.closest('.visually-hidden')) continue;
      const style = page.getComputedStyle(part);
      const name = `${part.tagName.toLowerCase()}.${[...part.classList].join('.')} "${(part.textContent ?? '').slice(0, 40)}"`;
      if (rect.left < -1 || rect.right > page.innerWidth + 1) found.push(`${name} crosses the window's side`);
      const scrolls = /(auto|scroll)/.test(style.overflowX + style.overflowY);
      if (!scrolls && style.overflowX !== 'visible' && part.clientWidth > 0 && part.scrollWidth > part.clientWidth + 1)
        found.push(`${name} cuts its text`);
    }
    return found;
  });
}

async function shoot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

describe('studio: workspace trust, a cloned folder in Restricted mode, its review, trusting and revoking', () => {
  let folder = '';
  let markers = '';
  let realFolder = '';
  // The person at main's dialog: a test may hold the answer back to see the page wait for it.
  let held: { promise: Promise<boolean>; resolve: (answer: boolean) => void } | null = null;
  const studio: StudioHarness = new StudioHarness({
    chooseFolder: async () => folder,
    viewport: { width: 1024, height: 700 },
    confirmPerson: async (question) => {
      studio.person.asked.push(question);
      if (held) return held.promise;
      return studio.person.answers.shift() ?? studio.person.fallback;
    },
  });
  const page = () => studio.page;
  const banner = () => page().getByRole('region', { name: 'Restricted mode', exact: true });
  const review = () => page().getByRole('dialog', { name: 'Review this workspace' });
  const explorer = () => page().getByRole('navigation', { name: 'Workspace explorer' });
  const mcpList = () => explorer().getByLabel('MCP servers', { exact: true });
  const marker = (name: string) => path.join(markers, `${name}.marker`);
  const calls = (method: string) => studio.calls.filter((entry) => entry.method === method);

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-trust-'));
    markers = await mkdtemp(path.join(os.tmpdir(), 'promptforge-trust-markers-'));
    await cp(path.join(repositoryRoot, 'test', 'fixtures', 'catalogs', 'valid'), folder, { recursive: true });
    await mkdir(path.join(folder, 'data'));
    await writeFile(path.join(folder, 'data', 'notes.txt'), 'notes\n');
    await writeFile(path.join(folder, 'tools', 'marker-server.mjs'), MARKER_SERVER);
    await appendFile(
      path.join(folder, 'tools.yaml'),
      [
        markerServer('notes', marker('notes'), '  env:\n    NODE_OPTIONS: --max-old-space-size=256'),
        'cowsay:',
        '  description: Says it like a cow (fetched by npx)',
        '  kind: command',
        '  command: [npx, -y, cowsay]',
        '  parameters:',
        '    type: object',
        '    properties:',
        '      text: { type: string }',
        '',
      ].join('\n'),
    );
    realFolder = await realpath(folder);
    await studio.open();
    page().setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when beforeAll failed
    await studio?.close();
    await rm(folder, { recursive: true, force: true });
    await rm(markers, { recursive: true, force: true });
  });

  it('opens the cloned folder restricted: the banner says what is off, and no server starts', async () => {
    await page().getByRole('button', { name: 'Open a folder…' }).click();
    await page().getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    await banner().waitFor();
    expect(await banner().locator('.trust-banner-text').textContent()).toBe(
      "Restricted mode: this workspace's command tools, MCP servers and secrets are off, and every tool call asks.",
    );
    await banner().getByRole('button', { name: 'Review and trust…' }).waitFor();
    // The explorer says why its server does not start, and offers the review; it listed nothing.
    await mcpList().getByText('It starts only once you trust this workspace.', { exact: false }).waitFor();
    expect(await mcpList().locator('.mcp-restricted').textContent()).toBe(
      'Not started in Restricted mode: notes. It starts only once you trust this workspace.',
    );
    expect(await mcpList().locator('code').allTextContents()).toEqual(['notes']);
    await mcpList().getByRole('button', { name: 'Review and trust…' }).waitFor();
    expect(calls('mcp:list')).toEqual([]);
    expect(calls('trust:status').length).toBeGreaterThan(0);
    expect(existsSync(marker('notes'))).toBe(false);
    expect((await studio.service.trustStatus()).state).toBe('restricted');
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await shoot(page(), `banner-${theme}`);
      expect(await clippedParts(banner())).toEqual([]);
      await expectNoSeriousAxeViolations(page(), `the Restricted-mode banner (${theme})`);
    }
    await studio.useTheme('dark');
  });

  it('reviews the manifest by kind, with its warnings in words and the files it covers; Esc closes it', async () => {
    const opener = banner().getByRole('button', { name: 'Review and trust…' });
    await opener.click();
    await review().waitFor();
    // Focus moved into the dialog, onto its heading.
    expect(await studio.focusedElement()).toBe('H2');
    const headings = await review().getByRole('heading', { level: 3 }).allTextContents();
    expect(headings.map((heading) => heading.replace(/ \(\d+\)$/, ''))).toEqual([
      'Commands it runs',
      'MCP servers it starts',
      'Secrets it sends',
      'Its own policies that restricted mode ignores',
      'Files it runs, covered by their contents',
    ]);
    expect(headings.slice(0, 3)).toEqual(['Commands it runs (2)', 'MCP servers it starts (1)', 'Secrets it sends (1)']);
    expect(await review().locator('.trust-item-title').allTextContents()).toEqual(
      expect.arrayContaining(['Tool "word_count" says approval: auto (runs without asking)']),
    );
    // Never trusted: nothing "changed since".
    expect(await review().getByText('What changed since you trusted it').count()).toBe(0);
    const server = review().getByRole('listitem').filter({ hasText: 'MCP server "notes"' }).first();
    expect(await server.locator('.trust-details li').allTextContents()).toContain(
      'env NODE_OPTIONS: --max-old-space-size=256',
    );
    const warnings = await review().locator('.trust-warning').allTextContents();
    expect(warnings.some((text) => /^⚠\s*Warning: sets NODE_OPTIONS, which changes what code/.test(text))).toBe(true);
    expect(
      warnings.some((text) => /^⚠\s*Warning: npx fetches and runs "cowsay" with no exact version/.test(text)),
    ).toBe(true);
    expect(await review().locator('.trust-warning-summary').textContent()).toMatch(/^⚠\s*2 warnings below/);
    expect(await review().locator('.trust-files code').allTextContents()).toEqual([
      'tools/marker-server.mjs',
      'tools/word-count.mjs',
    ]);
    expect(await review().locator('.trust-review-path').textContent()).toBe(realFolder);
    await shoot(page(), 'review-dark');
    expect(await clippedParts(review())).toEqual([]);
    await expectNoSeriousAxeViolations(page(), 'the workspace review (dark)');
    await page().keyboard.press('Escape');
    await review().waitFor({ state: 'detached' });
    // Focus is back on the button that opened it.
    expect(await studio.focusedElement()).toBe('BUTTON.button.button-small.trust-banner-button');
    // The theme button is behind the modal: switch, then open it again.
    await studio.useTheme('light');
    await opener.click();
    await review().waitFor();
    await shoot(page(), 'review-light');
    expect(await clippedParts(review())).toEqual([]);
    await expectNoSeriousAxeViolations(page(), 'the workspace review (light)');
    // No keyboard trap: Tab moves on through the dialog's controls, and Esc leaves it.
    for (let index = 0; index < 4; index += 1) await page().keyboard.press('Tab');
    await page().keyboard.press('Escape');
    await review().waitFor({ state: 'detached' });
    await studio.useTheme('dark');
    expect(studio.person.asked).toEqual([]);
  });

  it('keeps it restricted when the person says no in main’s dialog', async () => {
    studio.person.answers.push(false);
    await banner().getByRole('button', { name: 'Review and trust…' }).click();
    await review().getByRole('button', { name: 'Trust this workspace…' }).click();
    await review().getByText('You said no: nothing changed. The workspace stays in Restricted mode.').waitFor();
    expect(studio.person.asked.map((question) => question.title)).toEqual(['Trust this workspace?']);
    expect((await studio.service.trustStatus()).state).toBe('restricted');
    await review().getByRole('button', { name: 'Close' }).click();
    await review().waitFor({ state: 'detached' });
    await banner().waitFor();
    expect(existsSync(marker('notes'))).toBe(false);
  });

  it('trusts it through the person, waiting for their answer; the banner goes and nothing starts by itself', async () => {
    let resolve: (answer: boolean) => void = () => undefined;
    held = { promise: new Promise<boolean>((done) => (resolve = done)), resolve };
    await banner().getByRole('button', { name: 'Review and trust…' }).click();
    const trustButton = review().getByRole('button', { name: 'Trust this workspace…' });
    await trustButton.click();
    await review().getByText('Waiting for your answer in the confirmation dialog…').waitFor();
    expect(await trustButton.getAttribute('aria-disabled')).toBe('true');
    await expect.poll(() => studio.person.asked.length).toBe(2);
    held.resolve(true);
    held = null;
    await review()
      .getByText(/^Trusted\. Its command tools can run/)
      .waitFor();
    await banner().waitFor({ state: 'detached' });
    await review().getByRole('button', { name: 'Close' }).click();
    await review().waitFor({ state: 'detached' });
    // The banner's button is gone: focus lands in the workspace area, not on the page.
    expect(await studio.focusedElement()).toMatch(/^MAIN\.workspace-area/);
    expect((await studio.service.trustStatus()).state).toBe('trusted');
    // Trusted, the server is listed stopped: it starts on the person's click, not before.
    const notes = mcpList().getByRole('listitem', { name: 'MCP server notes' });
    await notes.getByLabel('status stopped').waitFor();
    expect(existsSync(marker('notes'))).toBe(false);
    expect(calls('mcp:list')).toEqual([]);
    await mcpList().getByRole('button', { name: 'Start servers and list their tools' }).click();
    await notes.getByLabel('status ready').waitFor();
    await notes.getByRole('button', { name: 'notes.read_text_file', exact: true }).waitFor();
    expect(existsSync(marker('notes'))).toBe(true);
  });

  it('a new MCP server written on disk makes it restricted again: the banner says what changed, and it never starts', async () => {
    await appendFile(path.join(folder, 'tools.yaml'), markerServer('late', marker('late')));
    // The banner comes with the trust-changed event the file watcher causes.
    await banner().waitFor();
    expect(await banner().locator('.trust-banner-changes').textContent()).toBe('1 change since you trusted it.');
    // What was running stops, and the list says why nothing starts.
    await mcpList().getByText('They start only once you trust this workspace.', { exact: false }).waitFor();
    expect(await mcpList().locator('code').allTextContents()).toEqual(['late', 'notes']);
    await banner().getByRole('button', { name: 'Review and trust…' }).click();
    const changes = review().getByRole('region', { name: 'What changed since you trusted it' });
    await changes.waitFor();
    const sentences = await changes.getByRole('listitem').allTextContents();
    expect(sentences).toHaveLength(1);
    expect(sentences[0]).toMatch(/^Added: MCP server "late"\. runs: /);
    // The change list comes first, before the groups.
    expect(await review().getByRole('heading', { level: 3 }).first().textContent()).toBe(
      'What changed since you trusted it',
    );
    await shoot(page(), 'review-changed-dark');
    await page().keyboard.press('Escape');
    await review().waitFor({ state: 'detached' });
    // Listing is refused while restricted, even from a page script.
    const listed = await page().evaluate(`window.promptforge['mcp:list']({})`);
    expect(listed).toMatchObject({ ok: false, error: { code: 'workspace-restricted' } });
    expect(existsSync(marker('late'))).toBe(false);
  });

  it('a page script calling trust:grant grants nothing: no press, nothing asked; riding on one, the person says no', async () => {
    studio.person.answers.push(false);
    const asked = studio.person.asked.length;
    const grantFromPage = `(async () => {
      const status = await window.promptforge['trust:status']({});
      if (!status.ok) return status;
      return window.promptforge['trust:grant']({ digest: status.value.digest });
    })()`;
    studio.person.forgetInput();
    expect(await page().evaluate(grantFromPage)).toMatchObject({ ok: false, error: { code: 'no-person-input' } });
    expect(studio.person.asked.length).toBe(asked);
    // The script rides on the person's next click, anywhere in the window (here, its top-left corner).
    await page().mouse.click(1, 1);
    const result = await page().evaluate(grantFromPage);
    expect(result).toMatchObject({ ok: true, value: { granted: false, trust: { state: 'restricted' } } });
    expect(studio.person.asked.length).toBe(asked + 1);
    expect((await studio.service.trustStatus()).state).toBe('restricted');
    await banner().waitFor();
    // A digest the page was never shown is refused before anyone is asked.
    await page().mouse.click(1, 1);
    const stale = await page().evaluate(`window.promptforge['trust:grant']({ digest: 'not-the-shown-one' })`);
    expect(stale).toMatchObject({ ok: false, error: { code: 'trust-changed' } });
    expect(studio.person.asked.length).toBe(asked + 1);
    expect(existsSync(marker('late'))).toBe(false);
  });

  it('a change while the review is open: trusting what was shown is refused, and the review shows what it is now', async () => {
    await banner().getByRole('button', { name: 'Review and trust…' }).click();
    await review().getByRole('region', { name: 'What changed since you trusted it' }).waitFor();
    const asked = studio.person.asked.length;
    // A file the server runs changes (no watcher sees it): main finds out when asked to trust.
    await writeFile(path.join(folder, 'tools', 'marker-server.mjs'), `${MARKER_SERVER}// edited\n`);
    await review().getByRole('button', { name: 'Trust this workspace…' }).click();
    await review()
      .getByText(/^The workspace changed while you were reading it, so nothing was trusted/)
      .waitFor();
    expect(studio.person.asked.length).toBe(asked);
    expect((await studio.service.trustStatus()).state).toBe('restricted');
    const changes = () =>
      review()
        .getByRole('region', { name: 'What changed since you trusted it' })
        .getByRole('listitem')
        .allTextContents();
    expect(await changes()).toContain('Changed: the contents of tools/marker-server.mjs, which is run.');

    // tools.yaml changes while it shows (the watcher sees it): the review says so, and shows it on request.
    await appendFile(
      path.join(folder, 'tools.yaml'),
      ['', 'stamp:', '  description: Prints the date', '  kind: command', '  command: [date]', ''].join('\n'),
    );
    const notice = review().getByText('This workspace changed while you were reading it.');
    await notice.waitFor();
    expect((await changes()).some((text) => text.startsWith('Added: Command tool "stamp"'))).toBe(false);
    await review().getByRole('button', { name: 'Show what it is now' }).click();
    await notice.waitFor({ state: 'detached' });
    expect((await changes()).some((text) => text.startsWith('Added: Command tool "stamp"'))).toBe(true);
    // Now it is what was shown: trusting it asks the person (who says yes).
    await review().getByRole('button', { name: 'Trust this workspace…' }).click();
    await review()
      .getByText(/^Trusted\./)
      .waitFor();
    expect(studio.person.asked.length).toBe(asked + 1);
    await banner().waitFor({ state: 'detached' });
    await review().getByRole('button', { name: 'Close' }).click();
    await review().waitFor({ state: 'detached' });
    expect(existsSync(marker('late'))).toBe(false);
  });

  it('the Trust view lists the workspace and a key origin, and revokes them', async () => {
    const store = new TrustStore((await studio.service.listTrust()).configDirectory);
    await store.approveKeyOrigin('openai', 'https://llm.example.net', 'studio');
    await page().getByRole('button', { name: 'Trust', exact: true }).click();
    const view = page().getByRole('region', { name: 'Trust', exact: true });
    await view.getByRole('heading', { level: 2, name: 'Trust' }).waitFor();
    const workspaces = view.getByRole('table', { name: 'Trusted workspaces' });
    const row = workspaces.locator(`tr[data-path="${realFolder}"]`);
    await row.waitFor();
    expect(await row.locator('th').textContent()).toBe(realFolder);
    const origins = view.getByRole('table', { name: 'Approved key origins' });
    await origins.locator('tr[data-origin="https://llm.example.net"]').waitFor();
    expect(await origins.locator('tbody th').first().textContent()).toBe('OpenAI keyopenai');
    expect(await view.getByText('trust-log.jsonl', { exact: false }).count()).toBe(1);
    await view.getByText('is trusted: its command tools, MCP servers and secrets may run.').waitFor();
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await shoot(page(), `trust-view-${theme}`);
      expect(await clippedParts(view)).toEqual([]);
      await expectNoSeriousAxeViolations(page(), `the Trust view (${theme})`);
    }
    await studio.useTheme('dark');

    await origins.getByRole('button', { name: 'Revoke the OpenAI key for https://llm.example.net' }).click();
    await origins.getByRole('button', { name: 'Yes, revoke the OpenAI key for https://llm.example.net' }).click();
    await view.getByText('No key origin is approved.', { exact: false }).waitFor();
    expect(await store.keyOriginApproved('openai', 'https://llm.example.net')).toBe(false);

    await row.getByRole('button', { name: `Revoke trust in ${realFolder}` }).click();
    await row.getByRole('button', { name: `Yes, revoke trust in ${realFolder}` }).click();
    await view
      .getByText('No workspace is trusted yet. Open a folder, read what it would run, and trust it from the banner.')
      .waitFor();
    await view.getByText(`Stopped trusting ${realFolder}: it is in Restricted mode from now on.`).waitFor();
    // The row and its button are gone: focus is on what was done, not lost on the page.
    expect(await studio.focusedElement()).toBe('P.ok-text');
    // Revoking the open workspace restricts it at once: the banner is back, the servers stopped.
    await banner().waitFor();
    expect((await studio.service.trustStatus()).state).toBe('restricted');
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await shoot(page(), `trust-view-empty-${theme}`);
      await expectNoSeriousAxeViolations(page(), `the empty Trust view (${theme})`);
    }
    await studio.useTheme('dark');
  });

  it('never started the server added on disk, and ran without console errors or CSP violations', () => {
    expect(existsSync(marker('late'))).toBe(false);
    expect(studio.pageErrors).toEqual([]);
  });
});
