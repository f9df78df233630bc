import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';

// One call of read_page (approval: ask): the run waits with a card in the Approvals tab.
const askOnce = `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and ('read ' .. #page .. ' chars') or tostring(page))
`;

type Theme = 'dark' | 'light';

describe('studio: zero serious or critical axe-core violations on every view, in both themes', () => {
  const studio = new StudioHarness({ viewport: { width: 1280, height: 800 } });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await studio.close();
  });

  /** Switches the studio to `theme` with the header's theme button (a no-op when it is on already). */
  const useTheme = async (theme: Theme): Promise<void> => {
    const other = theme === 'dark' ? 'light' : 'dark';
    const toggle = studio.page.getByRole('button', { name: `Switch to ${theme} theme` });
    if (await toggle.isVisible()) await toggle.click();
    await studio.page.getByRole('button', { name: `Switch to ${other} theme` }).waitFor();
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe(theme);
  };

  /**
   * Audits what `show` puts on screen in the dark theme, then in the light one. `show` runs before
   * each audit (after the theme changed), `hide` after it: dialogs are opened and closed around the
   * theme switch, whose button they cover.
   */
  const auditBothThemes = async (
    view: string,
    show: () => Promise<void> = async () => undefined,
    hide: () => Promise<void> = async () => undefined,
  ): Promise<void> => {
    for (const theme of ['dark', 'light'] as const) {
      await useTheme(theme);
      await show();
      await expectNoSeriousAxeViolations(studio.page, `${view} (${theme})`);
      await hide();
    }
  };

  it('the empty state', async () => {
    await studio.page.getByText('The examples run offline').waitFor();
    await auditBothThemes('the empty state');
  });

  it('the agent editor and a replayed conversation', async () => {
    await studio.openExampleWorkspace();
    await studio.openAgent('summarize-page');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.page.getByRole('log', { name: 'Conversation' }).getByText('Lumen 2.4 starts faster').first().waitFor();
    await auditBothThemes('the agent editor and conversation');
    for (const theme of ['dark', 'light'] as const) {
      await useTheme(theme);
      await studio.screenshot(`conversation-${theme}`);
    }
  });

  it('the run log and the usage table', async () => {
    await studio.showRunTab('Log');
    await studio.page.getByRole('list', { name: 'Run log' }).waitFor();
    await auditBothThemes('the run log');
    await studio.showRunTab('Usage/Timing');
    await studio.page.getByRole('table', { name: 'Usage per round' }).waitFor();
    await auditBothThemes('the usage table');
  });

  it('the shortcuts dialog and the About panel', async () => {
    const dialog = studio.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await auditBothThemes(
      'the shortcuts dialog',
      async () => {
        await studio.page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
        await dialog.waitFor();
      },
      async () => {
        await studio.page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      },
    );
    await auditBothThemes(
      'the About panel',
      () => studio.openAbout().then(() => undefined),
      async () => {
        await studio.page.getByRole('button', { name: 'About', exact: true }).click();
        await studio.page.getByRole('complementary', { name: 'About' }).waitFor({ state: 'detached' });
      },
    );
  });

  it('the command palette', async () => {
    const palette = studio.page.getByRole('dialog', { name: 'Command palette' });
    await auditBothThemes(
      'the command palette',
      async () => {
        await studio.page.locator('.app-header h1').click();
        await studio.page.keyboard.press('ControlOrMeta+Shift+P');
        await palette.waitFor();
        await studio.page.keyboard.type('run');
      },
      async () => {
        await studio.page.keyboard.press('Escape');
        await palette.waitFor({ state: 'detached' });
      },
    );
  });

  it('the catalog editor, raw and form', async () => {
    await studio.page.getByRole('button', { name: 'Tools tools.yaml' }).click();
    const editor = studio.page.getByRole('region', { name: 'Catalog editor tools.yaml' });
    await editor.getByRole('status').filter({ hasText: 'Valid' }).waitFor();
    await auditBothThemes('the catalog editor (raw)');
    await editor.getByRole('button', { name: 'Form', exact: true }).click();
    await editor.locator('form, .catalog-form').first().waitFor();
    await auditBothThemes('the catalog editor (form)');
    await editor.getByRole('button', { name: 'Raw', exact: true }).click();
  });

  it('the credentials', async () => {
    await studio.page.getByRole('button', { name: 'Credentials', exact: true }).click();
    // Run under scripts/with-test-keychain.ts the table shows; without a keychain, the message.
    await studio.page
      .getByRole('table', { name: 'Provider keys' })
      .or(studio.page.getByText('The keychain is not available'))
      .waitFor();
    await auditBothThemes('the credentials');
  });

  it('the approval rules (no rule yet: what a rule is, and how to make one)', async () => {
    await studio.page.getByRole('button', { name: 'Rules', exact: true }).click();
    await studio.page
      .getByRole('region', { name: 'Approval rules' })
      .getByRole('heading', { name: 'No rules yet' })
      .waitFor();
    await auditBothThemes('the approval rules');
  });

  it('the run history and a comparison of two runs', async () => {
    // A second run, so there are two to compare.
    await studio.openAgent('summarize-page');
    await studio.page.getByRole('button', { name: 'Run offline (replay)' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    await studio.page.getByRole('button', { name: 'Runs history' }).click();
    const table = studio.page.getByRole('table', { name: 'Runs' });
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await auditBothThemes('the run history');
    const checkboxes = table.getByRole('checkbox');
    await checkboxes.nth(0).check();
    await checkboxes.nth(1).check();
    await studio.page.getByRole('button', { name: 'Compare selected' }).click();
    await studio.page.getByRole('region', { name: 'Run comparison' }).locator('tbody tr').first().waitFor();
    await auditBothThemes('the run comparison');
  });

  it('the approvals tab with a waiting card', async () => {
    await writeFile(path.join(studio.service.workspaceRoot!, 'agents', 'ask-once.lua'), askOnce);
    await studio.page.getByRole('navigation', { name: 'Workspace explorer' }).getByText('ask-once').waitFor();
    await studio.openAgent('ask-once');
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    // The run opens its conversation when it starts: switch to Approvals once the call waits.
    await studio.page.locator('.conversation-card.state-awaiting-approval').first().waitFor();
    await studio.showRunTab('Approvals');
    await studio.waitForApprovalCards(1);
    await studio.page.locator('.approval-card[data-armed="true"]').waitFor();
    await auditBothThemes('the approvals tab');
    await studio.showRunTab('Conversation');
    await auditBothThemes('a conversation waiting for approval');
    await studio.page.keyboard.press('ControlOrMeta+Shift+.');
    await studio.waitForRunEnd();
  });

  it('ran without console errors or CSP violations (the audit included)', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
