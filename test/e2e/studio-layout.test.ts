import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionSpecs } from '../../renderer/src/shell/actions.js';
import { RuleStore } from '../../main/core/rules/rule-store.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

// One call of read_page (approval: ask): the run waits, the header and the run panel say so.
const askOnce = `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and ('read ' .. #page .. ' chars') or tostring(page))
`;

/** The regions whose content must fit their width. */
const regions = [
  'html',
  'body',
  '.app-header',
  '.header-actions',
  '.app-body',
  '.explorer',
  '.workspace-area',
  '.agent-tabs',
  '.editor-toolbar',
  '.run-panel',
  '.run-panel-header',
  '.tab-panel',
  '.history-view',
  '.history-scroll',
  '.history-table',
  '.rules-view',
  '.rule-card',
  '.rule-form',
];

describe('studio layout: no overflow from 1024 px, resizable and collapsible panels, command palette', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
    await studio.openExampleWorkspace();
    await writeFile(path.join(studio.service.workspaceRoot!, 'agents', 'ask-once.lua'), askOnce);
    await studio.agentButton('ask-once').waitFor();
    await studio.openAgent('ask-once');
    // Rules for the Rules view: long words, a conflict, a tool that is gone, one turned off.
    const rules = new RuleStore(studio.configDirectory);
    await rules.add({
      id: 'allow-read-page-release-notes-in-every-workspace',
      decision: 'allow',
      workspace: '*',
      tool: 'read_page',
      when: [
        { pointer: '/name', oneOf: ['release-notes', 'draft-notes', 'a-very-long-page-name-that-goes-on-and-on'] },
      ],
    });
    await rules.add({ id: 'never-read', decision: 'deny', workspace: '*', tools: 'read_*', enabled: false });
    await rules.add({ id: 'ask-pages', decision: 'ask', workspace: '*', tools: 'read_*' });
    await rules.add({ id: 'gone', decision: 'allow', workspace: '*', tool: 'fetch_url' });
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await studio.page.getByRole('button', { name: '1 tool call waiting for your approval' }).waitFor();
    await studio.page.locator('.run-status .status-pill', { hasText: 'waiting for approval' }).waitFor();
  });
  afterAll(async () => {
    await studio.close();
  });

  /** Every region (and the page) whose content is wider than its box, as `selector: scroll > client`. */
  const overflowing = async (): Promise<string[]> =>
    // A string: the test's tsconfig has no DOM types for code that runs in the page.
    (await studio.page.evaluate(`(() => {
      const found = [];
      for (const selector of ${JSON.stringify(regions)}) {
        for (const element of document.querySelectorAll(selector)) {
          if (element.scrollWidth > element.clientWidth) {
            found.push(selector + ': ' + element.scrollWidth + ' > ' + element.clientWidth);
          }
        }
      }
      // Controls cut off at the window's right edge, or by a box that clips them. (A box that scrolls,
      // such as the tab strip, shows the rest on scrolling; the regions above must not need it.)
      for (const control of document.querySelectorAll('button, [role="tab"], .status-pill')) {
        const box = control.getBoundingClientRect();
        if (box.width === 0) continue;
        let right = window.innerWidth;
        for (let box = control.parentElement; box; box = box.parentElement) {
          const overflow = getComputedStyle(box).overflowX;
          if (overflow === 'hidden' || overflow === 'clip') {
            right = Math.min(right, box.getBoundingClientRect().right);
            break;
          }
        }
        if (box.right > right + 0.5) {
          found.push((control.textContent.trim() || control.getAttribute('aria-label')) + ' ends at ' + box.right + ' > ' + right);
        }
      }
      return found;
    })()`)) as string[];

  /** On how many rows the controls of the agent's toolbar sit. */
  const toolbarRows = async (): Promise<number> =>
    (await studio.page.evaluate(`(() => {
      const toolbar = document.querySelector('.editor-toolbar');
      if (!toolbar) return 0;
      // Controls of one row share their vertical middle (within a few pixels of rounding).
      const rows = [];
      for (const child of toolbar.children) {
        const box = child.getBoundingClientRect();
        if (box.width === 0) continue;
        const middle = box.top + box.height / 2;
        if (!rows.some((row) => Math.abs(row - middle) < 8)) rows.push(middle);
      }
      return rows.length;
    })()`)) as number;

  const explorerSplitter = () => studio.page.getByRole('separator', { name: 'Explorer width' });
  const runSplitter = () => studio.page.getByRole('separator', { name: 'Run panel width' });
  const valueOf = async (splitter: ReturnType<typeof explorerSplitter>): Promise<number> =>
    Number(await splitter.getAttribute('aria-valuenow'));

  for (const [width, height] of [
    [1024, 700],
    [1280, 800],
    [1440, 900],
  ] as const) {
    it(`fits ${width}×${height} with a call waiting: editor, run panel and history`, async () => {
      await studio.page.setViewportSize({ width, height });
      // The panels follow the window once React has seen the resize: the run panel's splitter
      // then allows at most what leaves the explorer and 360 px for the editor.
      await expect
        .poll(async () => Number(await runSplitter().getAttribute('aria-valuemax')))
        .toBe(Math.min(960, width - (await valueOf(explorerSplitter())) - 360));
      // An agent with a recording has the widest toolbar (Run offline and Run).
      await studio.openAgent('summarize-page');
      expect(await overflowing()).toEqual([]);
      expect(await toolbarRows()).toBe(1);
      await studio.openAgent('ask-once');
      await studio.showRunTab('Conversation');
      await studio.page.locator('.run-status .status-pill', { hasText: 'waiting for approval' }).waitFor();
      expect(await overflowing()).toEqual([]);
      expect(await toolbarRows()).toBe(1);
      // The run's status pill stays on the tab row, and the header's indicator is whole (compact when narrow).
      expect(
        await studio.page.evaluate(`(() => {
          const tabs = document.querySelector('.run-panel .tabs').getBoundingClientRect();
          const pill = document.querySelector('.run-status .status-pill').getBoundingClientRect();
          return pill.top >= tabs.top && pill.bottom <= tabs.bottom;
        })()`),
      ).toBe(true);
      const indicator = studio.page.locator('.pending-indicator .pending-text').filter({ visible: true });
      expect(await indicator.textContent()).toBe(
        width < 1200 ? '1 approval waiting' : '1 tool call waiting for your approval',
      );
      expect(
        await studio.page.evaluate(
          `[...document.querySelectorAll('.pending-indicator .pending-text')].every((e) => e.scrollWidth <= e.clientWidth)`,
        ),
      ).toBe(true);
      if (width === 1024) await studio.screenshot('layout-1024');
      await studio.showRunTab('Approvals');
      await studio.waitForApprovalCards(1);
      expect(await overflowing()).toEqual([]);
      await studio.page.getByRole('button', { name: 'Runs history' }).click();
      await studio.page.getByRole('table', { name: 'Runs' }).waitFor();
      expect(await overflowing()).toEqual([]);
      expect(await studio.page.locator('.history-count').textContent()).toBe('1 run · tick two to compare');
      if (width === 1024) await studio.screenshot('layout-1024-history');
      // The Rules view, with a rule's edit form open.
      await studio.page.getByRole('button', { name: 'Rules', exact: true }).click();
      const view = studio.page.getByRole('region', { name: 'Approval rules' });
      await view.getByRole('heading', { name: 'gone' }).waitFor();
      expect(await overflowing()).toEqual([]);
      await view
        .getByRole('group', { name: 'Rule allow-read-page-release-notes-in-every-workspace' })
        .getByRole('button', { name: 'Edit…' })
        .click();
      await view.locator('.rule-words').getByText('Allows calls of tool').waitFor();
      expect(await overflowing()).toEqual([]);
      if (width === 1024) await studio.screenshot('layout-1024-rules');
      await view.getByRole('button', { name: 'Cancel' }).click();
      await studio.openAgent('ask-once');
    });
  }

  const widthOf = async (selector: string): Promise<number> =>
    Math.round((await studio.page.locator(selector).boundingBox())!.width);

  it('resizes the explorer and the run panel from the keyboard; the value is the width', async () => {
    await studio.page.setViewportSize({ width: 1440, height: 900 });
    await studio.openAgent('ask-once');
    const splitter = explorerSplitter();
    const start = await valueOf(splitter);
    expect(start).toBe(await widthOf('.explorer'));
    await splitter.focus();
    await studio.page.keyboard.press('ArrowRight');
    expect(await valueOf(splitter)).toBe(start + 16);
    expect(await widthOf('.explorer')).toBe(start + 16);
    await studio.page.keyboard.press('Home');
    expect(await valueOf(splitter)).toBe(160);
    await studio.page.keyboard.press('End');
    expect(await valueOf(splitter)).toBe(Number(await splitter.getAttribute('aria-valuemax')));
    await studio.page.keyboard.press('Home');
    await studio.page.keyboard.press('Shift+ArrowRight');
    expect(await valueOf(splitter)).toBe(160 + 64);

    // The run panel is on the right: moving its splitter left widens it.
    const run = runSplitter();
    const runStart = await valueOf(run);
    expect(runStart).toBe(await widthOf('.run-panel'));
    await run.focus();
    await studio.page.keyboard.press('ArrowLeft');
    expect(await valueOf(run)).toBe(runStart + 16);
    expect(await widthOf('.run-panel')).toBe(runStart + 16);
  });

  it('resizes with the pointer too', async () => {
    const splitter = explorerSplitter();
    const before = await valueOf(splitter);
    const box = (await splitter.boundingBox())!;
    await studio.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await studio.page.mouse.down();
    await studio.page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
    await studio.page.mouse.up();
    expect(await valueOf(splitter)).toBe(before + 40);
  });

  it('collapses and restores a panel with Enter on its splitter, and from the header', async () => {
    const splitter = explorerSplitter();
    const width = await valueOf(splitter);
    await splitter.focus();
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('navigation', { name: 'Workspace explorer' }).waitFor({ state: 'hidden' });
    expect(await splitter.getAttribute('aria-valuetext')).toBe('collapsed');
    expect(await studio.page.getByRole('button', { name: 'Explorer', exact: true }).getAttribute('aria-pressed')).toBe(
      'false',
    );
    // Focus stays on the splitter: no keyboard trap, no lost focus.
    expect(await studio.focusedElement()).toBe('DIV.splitter.splitter-collapsed[Explorer width]');
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('navigation', { name: 'Workspace explorer' }).waitFor();
    expect(await valueOf(splitter)).toBe(width);

    await studio.page.getByRole('button', { name: 'Run panel', exact: true }).click();
    await studio.page.getByRole('region', { name: 'Run panel' }).waitFor({ state: 'hidden' });
    expect(await overflowing()).toEqual([]);
    // The pending-calls indicator brings the run panel back, on the Approvals tab.
    await studio.page.getByRole('button', { name: '1 tool call waiting for your approval' }).click();
    await studio.page.getByRole('region', { name: 'Pending approvals' }).waitFor();
  });

  it('remembers the sizes and the collapsed panels across a reload', async () => {
    await explorerSplitter().focus();
    await studio.page.keyboard.press('ArrowLeft');
    const explorerWidth = await valueOf(explorerSplitter());
    const runWidth = await valueOf(runSplitter());
    await runSplitter().focus();
    await studio.page.keyboard.press('Enter');
    await studio.page.getByRole('region', { name: 'Run panel' }).waitFor({ state: 'hidden' });
    await studio.page.reload();
    await studio.waitForAppShell();
    await studio.page.locator('.agent-editor .cm-content').waitFor();
    expect(await valueOf(explorerSplitter())).toBe(explorerWidth);
    expect(await widthOf('.explorer')).toBe(explorerWidth);
    expect(await runSplitter().getAttribute('aria-valuetext')).toBe('collapsed');
    await studio.page.keyboard.press('ControlOrMeta+Shift+Y');
    await studio.page.getByRole('region', { name: 'Run panel' }).waitFor();
    expect(await valueOf(runSplitter())).toBe(runWidth);
  });

  const palette = () => studio.page.getByRole('dialog', { name: 'Command palette' });
  const options = () => palette().getByRole('option');

  it('opens the command palette with Ctrl/⌘+Shift+P even from the editor, lists every action once', async () => {
    await studio.page.locator('.agent-editor .cm-content').click();
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await palette().waitFor();
    const titles = await options().locator('.palette-label').allTextContents();
    const windowActions = actionSpecs.filter((spec) => spec.scope === 'window');
    expect(titles).toEqual(windowActions.map((spec) => spec.title));
    // An action that cannot run now says why (nothing to replay: ask-once has no recording).
    expect(await options().filter({ hasText: 'Run offline' }).getAttribute('aria-disabled')).toBe('true');
    // Each action's shortcut is shown beside it.
    const stop = options().filter({ hasText: 'Stop the running agent' });
    expect(await stop.locator('kbd').textContent()).toBe('Ctrl/⌘ + Shift + .');
    await expectNoSeriousAxeViolations(studio.page, 'the command palette');
    await studio.screenshot('palette');
  });

  it('filters as you type, runs the highlighted action on Enter and gives focus back', async () => {
    await studio.page.keyboard.type('usage');
    await expect.poll(() => options().count()).toBe(1);
    expect(await options().first().textContent()).toContain('Show usage and timing');
    await studio.page.keyboard.press('Enter');
    await palette().waitFor({ state: 'detached' });
    await expect
      .poll(() => studio.page.getByRole('tab', { name: 'Usage/Timing' }).getAttribute('aria-selected'))
      .toBe('true');
    // Focus went back to the editor, where it was.
    expect(await studio.focusedElement()).toContain('cm-content');
  });

  it('closes with Esc and returns focus; nothing runs', async () => {
    const history = studio.page.getByRole('button', { name: 'Runs history' });
    await history.focus();
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await palette().waitFor();
    await studio.page.keyboard.type('history');
    await studio.page.keyboard.press('Escape');
    await palette().waitFor({ state: 'detached' });
    expect(await studio.focusedElement()).toBe('BUTTON.section-link');
    expect(await studio.page.getByRole('table', { name: 'Runs' }).count()).toBe(0);
  });

  it('says when nothing matches, and picks with the arrow keys', async () => {
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    await palette().waitFor();
    await studio.page.keyboard.type('zzz');
    await palette().getByText('No action matches “zzz”.').waitFor();
    await studio.page.keyboard.press('ControlOrMeta+a');
    await studio.page.keyboard.type('show the');
    const count = await options().count();
    expect(count).toBeGreaterThan(2);
    await studio.page.keyboard.press('ArrowDown');
    expect(await options().nth(1).getAttribute('aria-selected')).toBe('true');
    await studio.page.keyboard.press('ArrowUp');
    await studio.page.keyboard.press('ArrowUp');
    expect(
      await options()
        .nth(count - 1)
        .getAttribute('aria-selected'),
    ).toBe('true');
    await studio.page.keyboard.press('Escape');
    await palette().waitFor({ state: 'detached' });
  });

  it('never opens on single keys, and ? types text in the editor instead of opening the shortcuts', async () => {
    await studio.page.getByRole('heading', { level: 1 }).click();
    for (const key of ['p', 'P', 'Shift+P', 'e', 'y']) await studio.page.keyboard.press(key);
    expect(await palette().count()).toBe(0);
    expect(await studio.page.getByRole('navigation', { name: 'Workspace explorer' }).isVisible()).toBe(true);
    await studio.page.locator('.agent-editor .cm-content').click();
    await studio.page.keyboard.press('End');
    await studio.page.keyboard.type('?');
    expect(await studio.page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count()).toBe(0);
    await studio.page.keyboard.press('Backspace');
  });

  it('lists each shortcut exactly once in the shortcuts dialog, from the same registry', async () => {
    await studio.page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    const dialog = studio.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    const keys = await dialog.locator('kbd').allTextContents();
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(actionSpecs.flatMap((spec) => (spec.keys === undefined ? [] : [spec.keys])));
    expect(keys).toContain('Ctrl/⌘ + Shift + P');
    await studio.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('ran without console errors or CSP violations', async () => {
    const [waiting] = studio.service.listApprovals();
    if (waiting) studio.service.stopRun(waiting.runId);
    expect(studio.pageErrors).toEqual([]);
  });
});

// ---- Every view, both themes, both sizes, with names that are long, right-to-left or stacked ----

/** Names a person (or a cloned workspace) may use, each hard on a layout in its own way. */
const LONG = 'a-very-long-agent-name-that-goes-on-and-on-to-test-every-header-and-cell-x';
const RTL = 'סוכן-שמסכם-את-הדף-ומחזיר-תשובה';
const MARKS = 'z\u0338\u0322\u031bg\u0335\u0322a\u0336\u0322l\u0337\u0322g\u0338\u0322o\u0335\u0322';
const LONG_TEXT = `${'x'.repeat(400)} ${'שלום עולם '.repeat(30)} ${'e\u0301\u0302\u0303\u0304'.repeat(40)}`;

/**
 * What does not fit, in the page as it is: a box that scrolls sideways (code editors and preformatted
 * text excepted: their long lines scroll on purpose), the page itself scrolling sideways, and any
 * control (button, tab, field, link, status pill) cut off by a box around it or the window.
 */
const notFitting = (page: StudioHarness['page']): Promise<string[]> =>
  page.evaluate(`(() => {
    const found = [];
    const name = (el) => (el.getAttribute('aria-label') || el.textContent || el.className || el.tagName).toString().trim().slice(0, 60);
    const own = (el) => el.closest('.cm-editor, pre, textarea, .json-view');
    // The tab strip may scroll when more agents are open than fit, as long as the active tab is in
    // view, whole (its inactive neighbours shrink first, then scroll).
    const strip = (el) => el.closest('.agent-tablist') && el.getAttribute('aria-selected') !== 'true';
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
      found.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth);
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      if (style.display === 'none' || el.getClientRects().length === 0) continue;
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1 && !own(el) && !el.matches('.agent-tablist'))
        found.push('scrolls sideways: ' + (el.className || el.tagName) + ' ' + el.scrollWidth + ' > ' + el.clientWidth);
    }
    for (const control of document.querySelectorAll('button, [role="tab"], input, select, a, .status-pill, .tag')) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 || own(control) || strip(control)) continue;
      let left = 0;
      let right = window.innerWidth;
      for (let box = control.parentElement; box; box = box.parentElement) {
        if (getComputedStyle(box).overflowX === 'visible') continue;
        const edge = box.getBoundingClientRect();
        left = Math.max(left, edge.left);
        right = Math.min(right, edge.right);
      }
      if (box.right > right + 0.5 || box.left < left - 0.5)
        found.push('cut off: ' + name(control) + ' [' + Math.round(box.left) + ', ' + Math.round(box.right) + '] outside [' + Math.round(left) + ', ' + Math.round(right) + ']');
    }
    return found;
  })()`) as Promise<string[]>;

describe('studio layout: every view fits from 1024×700 up, in both themes, with hard names and many runs', () => {
  const studio = new StudioHarness({ viewport: { width: 1024, height: 700 } });
  let replayIds: string[] = [];

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    for (const name of [LONG, RTL, MARKS])
      await writeFile(path.join(root, 'agents', `${name}.lua`), `log(${JSON.stringify(LONG_TEXT)})\n`);
    await writeFile(
      path.join(root, 'tools.yaml'),
      `${await readFile(path.join(root, 'tools.yaml'), 'utf8')}\n${'t'.repeat(64)}:\n  kind: builtin\n  builtin: echo\n  description: ${JSON.stringify(LONG_TEXT)}\n`,
    );
    await studio.agentButton(LONG).waitFor();
    for (const name of [LONG, RTL, MARKS]) {
      const { runId } = await studio.call('run:start', { script: `agents/${name}.lua` });
      await studio.waitForTranscriptEvent(runId, 'run-end');
    }
    // Many runs: the history's rows and their buttons, the comparison.
    const state = (await studio.call('workspace:state', {}))!;
    for (let index = 0; index < 18; index += 1) {
      const { runId } = await studio.call('run:start', {
        script: 'agents/summarize-page.lua',
        replay: state.recordings['agents/summarize-page.lua']!,
      });
      await studio.waitForTranscriptEvent(runId, 'run-end');
      replayIds.push(runId);
    }
    replayIds = replayIds.slice(0, 2);
  }, 180_000);
  afterAll(async () => {
    await studio.close();
  });

  const explorer = () => studio.page.getByRole('navigation', { name: 'Workspace explorer' });

  /** Each view: how to get there, and its name for the screenshot. */
  const views: Array<[string, () => Promise<void>]> = [
    ['agent', () => studio.openAgent('summarize-page')],
    ['agent-long', () => studio.openAgent(LONG)],
    ['agent-rtl', () => studio.openAgent(RTL)],
    [
      'history',
      async () => {
        await explorer()
          .getByRole('button', { name: /^Runs history/ })
          .click();
        await studio.page.getByRole('table', { name: 'Runs' }).waitFor();
      },
    ],
    [
      'history-open-run',
      async () => {
        await studio.page.getByRole('button', { name: `Open ${replayIds[0]}` }).click();
        await studio.page.getByRole('region', { name: 'Run panel' }).getByText('Run ok').first().waitFor();
      },
    ],
    [
      'history-compare',
      async () => {
        for (const runId of replayIds)
          await studio.page.getByRole('checkbox', { name: `Select ${runId} for comparison` }).check();
        await studio.page.getByRole('button', { name: 'Compare selected' }).click();
        await studio.page.getByRole('region', { name: 'Run comparison' }).waitFor();
      },
    ],
    [
      'tools-form',
      async () => {
        await explorer()
          .getByRole('button', { name: /^Tools tools\.yaml/ })
          .click();
        await studio.page.getByRole('button', { name: 'Form' }).click();
        await studio.page.locator('.catalog-form').waitFor();
      },
    ],
    [
      'models-raw',
      async () => {
        await explorer()
          .getByRole('button', { name: /^Models models\.yaml/ })
          .click();
        await studio.page.getByRole('button', { name: 'Raw' }).click();
        await studio.page.locator('.catalog-editor .cm-content').waitFor();
      },
    ],
    [
      'tool-trial',
      async () => {
        await explorer()
          .getByRole('button', { name: new RegExp(`^${'t'.repeat(64)}`) })
          .click();
        await studio.page.locator('.tool-trial').waitFor();
      },
    ],
    [
      'credentials',
      async () => {
        await studio.page.getByRole('button', { name: 'Credentials' }).click();
        await studio.page.getByRole('heading', { name: 'Credentials' }).waitFor();
      },
    ],
    [
      'trust',
      async () => {
        await studio.page.getByRole('button', { name: 'Trust', exact: true }).click();
        await studio.page.getByRole('heading', { name: 'Trust', exact: true }).first().waitFor();
      },
    ],
    [
      'tests',
      async () => {
        await studio.page.getByRole('button', { name: 'Tests', exact: true }).click();
        await studio.page.locator('.tests-view').waitFor();
      },
    ],
  ];

  for (const [width, height] of [
    [1024, 700],
    [1440, 900],
  ] as const)
    for (const theme of ['dark', 'light'] as const)
      it(`${width}×${height}, ${theme}: nothing is cut off and nothing scrolls sideways, in any view`, async () => {
        await studio.page.setViewportSize({ width, height });
        await studio.useTheme(theme);
        const problems: string[] = [];
        for (const [name, open] of views) {
          await open();
          problems.push(...(await notFitting(studio.page)).map((problem) => `${name}: ${problem}`));
          await studio.screenshot(`view-${name}-${width}-${theme}`);
        }
        if (problems.length > 0) console.log(`LAYOUT ${width} ${theme}\n${problems.join('\n')}`);
        expect(problems).toEqual([]);
      });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
