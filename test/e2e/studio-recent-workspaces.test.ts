import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecentWorkspaces } from '../../main/core/studio/recent-workspaces.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

/**
 * The empty screen lists the workspaces opened in earlier sessions (main keeps them in the config
 * folder): one opens with a key press, without the folder dialog; one that is gone shows as such
 * and can be forgotten.
 */
describe('studio: recent workspaces on the empty screen', () => {
  let kept = '';
  let gone = '';
  const studio = new StudioHarness({ viewport: { width: 1024, height: 700 } });
  const page = () => studio.page;
  const recent = () => page().getByRole('region', { name: 'Recent workspaces' });

  beforeAll(async () => {
    kept = await realpath(await mkdtemp(path.join(os.tmpdir(), 'promptforge-recent-kept-')));
    gone = await realpath(await mkdtemp(path.join(os.tmpdir(), 'promptforge-recent-gone-')));
    await cp(path.join(repositoryRoot, 'test', 'fixtures', 'catalogs', 'valid'), kept, { recursive: true });
    await studio.open();
    // An earlier session opened both (main records a workspace its page opened); one is gone since.
    const list = new RecentWorkspaces(studio.configDirectory);
    await list.record(gone, new Date('2026-01-02T10:00:00Z'));
    await list.record(kept, new Date('2026-01-03T10:00:00Z'));
    await rm(gone, { recursive: true });
    await page().reload();
    await studio.waitForAppShell();
  });
  afterAll(async () => {
    await studio.close();
    await rm(kept, { recursive: true, force: true });
  });

  it('lists them newest first: the one still there opens, the one gone only says so', async () => {
    const rows = recent().locator('li');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-path')).toBe(kept);
    expect(await rows.nth(1).getAttribute('data-path')).toBe(gone);
    expect(
      await rows
        .nth(0)
        .getByRole('button', { name: `Open ${path.basename(kept)} ${kept}` })
        .count(),
    ).toBe(1);
    expect(
      await rows
        .nth(1)
        .getByRole('button', { name: /^Open / })
        .count(),
    ).toBe(0);
    expect(await rows.nth(1).textContent()).toContain('Not found: moved, deleted or replaced');
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await studio.screenshot(`recent-workspaces-${theme}`);
      await expectNoSeriousAxeViolations(page(), `the recent workspaces (${theme})`);
    }
    await studio.useTheme('dark');
    // Nothing is cut at 1024x700: the long paths wrap.
    const overflow = await recent().evaluate(
      (element) =>
        (element as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth -
        (element as unknown as { clientWidth: number }).clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(1);
  });

  it('forgets the one gone by keyboard, and focus stays in the list', async () => {
    const forget = recent().getByRole('button', { name: `Forget ${path.basename(gone)} (${gone})` });
    await forget.focus();
    await page().keyboard.press('Enter');
    await forget.waitFor({ state: 'detached' });
    expect(await recent().locator('li').count()).toBe(1);
    await expect.poll(() => studio.focusedElement()).toBe('BUTTON.recent-open');
  });

  it('opens the one still there with Enter, without the folder dialog', async () => {
    await page().keyboard.press('Enter');
    await page().getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    const explorer = page().getByRole('navigation', { name: 'Workspace explorer' });
    expect(await explorer.locator('.workspace-name').textContent()).toBe(path.basename(kept));
    const methods = studio.calls.map((entry) => entry.method);
    expect(methods).toContain('workspace:open');
    expect(methods).not.toContain('workspace:choose');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
