import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';

describe('studio keyboard: one tab stop per list, and focus somewhere meaningful after every action', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });

  beforeAll(async () => {
    await studio.open();
    await studio.openExampleWorkspace();
    const agents = path.join(studio.service.workspaceRoot!, 'agents');
    // Agents that call no model: they run to the end offline.
    for (const name of ['plain', 'plain-two', 'doomed'])
      await writeFile(path.join(agents, `${name}.lua`), "log('ok')\n");
    await studio.agentButton('plain').waitFor();
    await studio.agentButton('doomed').waitFor();
    await studio.openAgent('plain');
  });
  afterAll(async () => {
    await studio.close();
  });

  const explorer = () => studio.page.getByRole('navigation', { name: 'Workspace explorer' });

  it('reaches ▶ Run from the top in few Tabs: each explorer list is one stop', async () => {
    // From the top of the page: after a reload, the studio opens the workspace's first agent.
    await studio.page.reload();
    await studio.waitForAppShell();
    await studio.page.locator('.agent-editor .cm-content').waitFor();
    const inExplorer: string[] = [];
    let presses = 0;
    for (; presses < 60; presses += 1) {
      await studio.page.keyboard.press('Tab');
      const where = (await studio.page.evaluate(`(() => {
        const el = document.activeElement;
        const label = el.querySelector('.item-label') || el;
        return { explorer: !!el.closest('.explorer'), text: (label.textContent || el.getAttribute('aria-label') || '').trim() };
      })()`)) as { explorer: boolean; text: string };
      if (where.explorer) inExplorer.push(where.text);

      if (where.text === '▶ Run') break;
    }
    // 7 agents, 7 tools and a run or more used to be a stop each (41 Tabs to ▶ Run).
    expect(
      inExplorer.filter((text) => /^(plain|plain-two|doomed|echo-loop|summarize-page|weather-report)/.test(text)),
    ).toHaveLength(1);
    expect(
      inExplorer.filter((text) => /^(echo|read_file|list_files|http_get|now|weather|read_page)\b/.test(text)),
    ).toHaveLength(1);
    // The header's 10 buttons, the explorer's 7 stops (+ New, agents, Tools, tools, Models, Runs,
    // files), a splitter, the tab strip's 3, the model list, Save, ▶ Run.
    expect(presses + 1).toBeLessThanOrEqual(24);
  });

  it('moves inside a list with ↑ ↓ Home End and a letter; Tab leaves the list at once', async () => {
    const agents = explorer().getByRole('region', { name: 'Agents' });
    await studio.agentButton('plain').focus();
    // The current agent is the list's tab stop.
    expect(await studio.agentButton('plain').getAttribute('tabindex')).toBe('0');
    await studio.page.keyboard.press('Home');
    const names = async () =>
      studio.page.evaluate(`document.activeElement.querySelector('.item-label')?.textContent`) as Promise<string>;
    expect(await names()).toBe('doomed');
    await studio.page.keyboard.press('ArrowDown');
    expect(await names()).toBe('echo-loop');
    await studio.page.keyboard.press('End');
    expect(await names()).toBe('weather-report');
    await studio.page.keyboard.press('ArrowDown');
    expect(await names()).toBe('weather-report');
    await studio.page.keyboard.press('s');
    expect(await names()).toBe('summarize-page');
    // Agents are listed by file name: plain-two.lua sorts before plain.lua.
    await studio.page.keyboard.press('p');
    expect(await names()).toBe('plain-two');
    await studio.page.keyboard.press('p');
    expect(await names()).toBe('plain');
    // The stop follows the focus: Shift+Tab out and Tab back lands on the same item.
    expect(await agents.locator('[tabindex="0"]').count()).toBe(1);
    await studio.page.keyboard.press('Tab');
    await studio.page.keyboard.press('Shift+Tab');
    expect(await names()).toBe('plain');
    // Enter opens it, as a click does.
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('region', { name: 'Editor agents/plain.lua' }).waitFor();
  });

  it('▶ Run keeps the focus while the run goes and after it ends (Run turns into Stop and back)', async () => {
    const run = studio.page.locator('.run-button');
    await run.focus();
    await studio.page.keyboard.press('Enter');
    expect(await studio.waitForRunEnd()).toBe('ok');
    await expect.poll(() => run.textContent()).toBe('▶ Run');
    expect(await studio.page.evaluate(`document.activeElement.classList.contains('run-button')`)).toBe(true);
  });

  it('Esc closes the New agent dialog and focus goes back to the button that opened it', async () => {
    const opener = studio.page.getByRole('button', { name: 'New agent', exact: true });
    await opener.focus();
    await studio.page.keyboard.press('Enter');
    const dialog = studio.page.getByRole('dialog');
    await dialog.waitFor();
    await studio.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await studio.page.evaluate(`document.activeElement.textContent.trim()`)).toBe('+ New agent');
  });

  it('after deleting an agent from the File menu, focus is on the tab that took its place', async () => {
    await studio.openAgent('plain-two');
    await studio.openAgent('doomed');
    await studio.page.getByRole('button', { name: /^File/ }).click();
    await studio.page.getByRole('button', { name: /^Delete/ }).click();
    await studio.agentButton('doomed').waitFor({ state: 'detached' });

    await expect
      .poll(() =>
        studio.page.evaluate(
          `document.activeElement.getAttribute('role') + ' ' + document.activeElement.getAttribute('aria-selected')`,
        ),
      )
      .toBe('tab true');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
