import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEEK_PAGE_TOOL } from './approval-fixtures.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// One call of read_page (approval: ask): a "policy" card.
const askPage = `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and #page or tostring(page))
`;
// peek_page is an untrusted tool with approval: auto (added below); quoting its output in echo
// makes a "tainted" card.
const askTainted = `local page = tools.call('peek_page', { name = 'release-notes' })
local ok, echoed = pcall(tools.call, 'echo', { text = 'Quote: ' .. page:match('%- Faster[^\\n]*') })
log(ok and echoed or tostring(echoed))
`;

// Typed key by key into the Lua editor while the cards arrive: every decision letter, Enter and
// Space, lower and upper case. No brackets or quotes, so the editor's auto-closing leaves the text
// exactly as typed.
const typedChunks = [
  'local allowed = deal and yes or later',
  '\nlocal label = all; local delay = 1',
  '\nLocal Labels = Delayed and Enabled',
  '\nlocal ready = yesterday or alldone',
  '\nlocal e, a, d, l, y = 1, 2, 3, 4, 5',
  '\nlocal enabled = allowed and deal',
];

describe('studio: a card arriving never takes focus, and keys decide only on a card the person moved to', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  /** The card now at place `index`, as the same card wherever it moves as others come and go (by its run). */
  const cardAt = async (index: number) => {
    const runId = await studio.page.locator('.approval-card').nth(index).getAttribute('data-run-id');
    expect(runId).toMatch(/\S/);
    return studio.page.locator(`.approval-card[data-run-id="${runId}"]`);
  };
  const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
  const runs: string[] = [];

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15000);
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    await appendFile(path.join(root, 'tools.yaml'), PEEK_PAGE_TOOL);
    await writeFile(path.join(root, 'agents', 'ask-page.lua'), askPage);
    await writeFile(path.join(root, 'agents', 'ask-tainted.lua'), askTainted);
    // The workspace watcher reloads the catalog and reports the new agents.
    await studio.agentButton('ask-tainted').waitFor();
    await studio.page
      .getByRole('region', { name: 'Tools' })
      .locator('.item-label', { hasText: /^peek_page$/ })
      .waitFor();
    // peek_page (a command tool with approval: auto) makes the example restricted, where every call
    // would be refused before a card: the person trusts the workspace as it is now.
    await studio.trustWorkspace();
    await studio.openAgent('echo-loop');
  });
  afterAll(async () => {
    await studio.close();
  });

  const start = async (script: 'ask-page' | 'ask-tainted'): Promise<void> => {
    const { runId } = await studio.service.startRun({ script: `agents/${script}.lua` });
    runs.push(runId);
  };

  it('keeps focus and every keystroke in the editor while six cards (two tainted) arrive', async () => {
    await studio.showRunTab('Approvals');
    await studio.replaceEditorText('.agent-editor .cm-content', '');
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    await studio.recordFocusChanges();

    // Three runs one by one: type while each card arrives, and again once it is there (arming).
    for (const [index, script] of (['ask-page', 'ask-tainted', 'ask-page'] as const).entries()) {
      const started = start(script);
      await studio.page.keyboard.type(typedChunks[index]!);
      await started;
      await studio.waitForApprovalCards(index + 1);
      // A space after each letter: the editor's completion list, which may open after a letter on a
      // slow machine, closes, and Enter stays a line break instead of taking a completion.
      for (const key of ['Shift+L', 'Space', 'Enter', 'Space']) await studio.page.keyboard.press(key);
    }
    // Three more at once, while typing.
    const burst = Promise.all([start('ask-page'), start('ask-tainted'), start('ask-page')]);
    for (const chunk of typedChunks.slice(3)) await studio.page.keyboard.type(chunk);
    await burst;
    await studio.waitForApprovalCards(6);
    // Every card armed now, focus still in the editor: letters are still only letters.
    await studio.page.locator('.approval-card[data-armed="false"]').first().waitFor({ state: 'detached' });
    await studio.page.keyboard.type(' \naaa lll ddd eee yyy');
    for (const key of ['Shift+L', 'Shift+A', 'Space', 'Enter', 'Space', 'y', 'Space', 'Enter'])
      await studio.page.keyboard.press(key);

    const typed = [
      ...typedChunks.slice(0, 3).map((chunk) => `${chunk}L \n `),
      ...typedChunks.slice(3),
      ' \naaa lll ddd eee yyyLA \n y \n',
    ].join('');
    const text = await studio.page.locator('.agent-editor .cm-content').evaluate((element) => {
      // One line per .cm-line (textContent drops the line breaks).
      const lines = (
        element as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string }> }
      ).querySelectorAll('.cm-line');
      return Array.from(lines, (line) => line.textContent).join('\n');
    });
    // Every keystroke reached the editor (auto-indent may add or drop spaces around line breaks).
    const words = (value: string) => value.split(/\s+/).filter((word) => word !== '');
    expect(words(text)).toEqual(words(typed));
    expect(text.split('\n')).toHaveLength(typed.split('\n').length);
    expect(await studio.focusedElement()).toBe('DIV.cm-content[Lua source of agents/echo-loop.lua]');
    expect(await studio.focusChanges()).toEqual([]);
    expect(decideCalls()).toBe(0);
    const pending = studio.service.listApprovals();
    expect(pending).toHaveLength(6);
    expect(pending.filter((approval) => approval.reason === 'tainted')).toHaveLength(2);
    expect(await studio.page.locator('.approval-card').count()).toBe(6);
    expect(await studio.page.locator('.approval-card form, .approval-card .edit-arguments').count()).toBe(0);
    // The transcripts hold the policy's own decisions (peek_page is auto), and nothing from a person.
    for (const runId of runs) {
      const transcript = await readFile(path.join(studio.service.workspaceRoot!, 'runs', `${runId}.jsonl`), 'utf8');
      const decisions = transcript
        .split('\n')
        .filter((line) => line.includes('"approval-decision"'))
        .map((line) => (JSON.parse(line) as { decision: { source: string } }).decision.source);
      expect(decisions.filter((source) => source !== 'policy')).toEqual([]);
    }
    // About 250 keystrokes, each a round trip to Chromium: a bound for a machine with both cores busy.
  }, 90_000);

  it('decides once the person clicks into an armed card, and after an arrow key to the next', async () => {
    const first = await cardAt(0);
    // A key already held down when the person clicks in only repeats: repeats never decide.
    await studio.page.keyboard.down('a');
    await first.locator('h3').click();
    // Armed (a picture or a card that moved may have made it wait again): what follows is ignored
    // for being a repeat or a chord, not for arming.
    await first.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await studio.page.keyboard.down('a');
    await studio.page.keyboard.up('a');
    expect(await studio.focusedElement()).toBe('ARTICLE.approval-card');
    // Chords are not decisions (Ctrl+A selects, Alt and ⌘ belong to the system); nor is Shift+A.
    for (const key of ['Control+a', 'Alt+a', 'Meta+a', 'Control+Shift+L', 'Alt+d', 'Control+e', 'Shift+A', 'Shift+D'])
      await studio.page.keyboard.press(key);
    expect(await studio.page.locator('.approval-card form, .approval-card .edit-arguments').count()).toBe(0);
    expect(decideCalls()).toBe(0);
    await pressWhenArmed({ card: first, button: first.locator('h3'), key: 'a', done: 'card-gone' });
    await studio.page.locator('.approval-card').nth(4).waitFor();
    await studio.page.locator('.approval-card').nth(5).waitFor({ state: 'detached' });
    expect(decideCalls()).toBe(1);
    expect(studio.service.listApprovals()).toHaveLength(5);
    // Focus went back to the panel with the decided card, not onto the next card.
    expect(await studio.focusedElement()).toBe('DIV.approvals-panel[Pending approvals]');
    await studio.page.keyboard.press('a');
    expect(decideCalls()).toBe(1);
    // The cards moved up into the place of the decided one: each arms again before it takes a key.
    await studio.page.locator('.approval-card[data-armed="false"]').first().waitFor({ state: 'detached' });
    await studio.page.keyboard.press('ArrowDown');
    expect(await studio.focusedElement()).toBe('ARTICLE.approval-card');
    const next = await cardAt(0);
    expect(
      await next.evaluate((element) => (element as unknown as { matches(s: string): boolean }).matches(':focus')),
    ).toBe(true);
    const reason = next.locator('form').getByLabel('Reason for denying');
    await pressWhenArmed({ card: next, button: next.locator('h3'), key: 'd', done: reason });
    await studio.page.keyboard.type('not now');
    await pressWhenArmed({ card: next, button: reason, key: 'Enter', done: 'card-gone' });
    await studio.page.locator('.approval-card').nth(3).waitFor();
    await studio.page.locator('.approval-card').nth(4).waitFor({ state: 'detached' });
    expect(decideCalls()).toBe(2);
  });

  it('ignores keys and clicks on a card that has just arrived, until it is armed', async () => {
    // Time in the page stands still, so the new card stays unarmed for as long as the test needs.
    await studio.page.clock.install();
    await studio.page.clock.pauseAt(Date.now() + 60_000);
    await start('ask-page');
    await studio.waitForApprovalCards(5);
    const fresh = await cardAt(4);
    expect(await fresh.getAttribute('data-armed')).toBe('false');
    expect(await fresh.getByRole('button', { name: 'A Approve' }).isDisabled()).toBe(true);
    await fresh.locator('h3').click();
    expect(await studio.focusedElement()).toBe('ARTICLE.approval-card.arming');
    for (const key of ['a', 'Shift+L', 'd', 'e']) await studio.page.keyboard.press(key);
    expect(await fresh.getAttribute('data-armed')).toBe('false');
    // Another card arriving leaves focus on this one.
    await studio.recordFocusChanges();
    await start('ask-tainted');
    await studio.waitForApprovalCards(6);
    expect(await studio.focusChanges()).toEqual([]);
    expect(
      await fresh.evaluate((element) => (element as unknown as { matches(s: string): boolean }).matches(':focus')),
    ).toBe(true);
    expect(await studio.page.locator('.approval-card form, .approval-card .edit-arguments').count()).toBe(0);
    expect(decideCalls()).toBe(2);
    await studio.page.clock.runFor(1000);
    await fresh.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await studio.page.clock.resume();
    // Focus stayed on the card through the arming: now the key counts (pressed again if the card
    // moved meanwhile and ignored it, as a person would).
    await pressWhenArmed({ card: fresh, button: fresh.locator('h3'), key: 'Shift+L', done: 'card-gone' });
    await studio.page.locator('.approval-card').nth(5).waitFor({ state: 'detached' });
    expect(decideCalls()).toBe(3);
    // The card decided was the focused read_page one; the tainted newcomer still waits.
    expect(
      studio.service
        .listApprovals()
        .map((approval) => approval.alias)
        .sort(),
    ).toEqual(['echo', 'echo', 'read_page', 'read_page', 'read_page']);
    expect(await studio.page.locator('.last-decision').textContent()).toBe(
      'Last decision: Allowed for this run by you: untainted calls of read_page, as long as the tool stays as it is now. Tainted calls will still ask.',
    );
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
