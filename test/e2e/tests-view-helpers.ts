/**
 * What the two Tests-view e2e files share: a copy of the examples without tests, the way from a
 * restricted refusal to a finished run, and the clipping probe.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { repositoryRoot, type StudioHarness } from './bridge.js';

/** A fresh copy of the shipped examples without their tests/ and runs/ folders (a workspace with no tests yet). */
export function examplesWithoutTests(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  cpSync(path.join(repositoryRoot, 'examples'), folder, {
    recursive: true,
    filter: (source) => !/[\\/](runs|tests)$/.test(source),
  });
  return folder;
}

/**
 * From the Tests view's "never run restricted" refusal: the trust review, main's own question (the
 * person says yes), then Run all once main has applied that yes, until the one case has passed.
 */
export async function trustThenRunAll(studio: StudioHarness): Promise<void> {
  const refusal = studio.page.getByRole('alert').filter({ hasText: 'tests never run restricted' });
  await refusal.getByRole('button', { name: 'Review and trust…' }).click();
  const review = studio.page.getByRole('dialog');
  await review.getByRole('button', { name: /^Trust this workspace/ }).click();
  await expect.poll(() => studio.person.asked.map((question) => question.title)).toEqual(['Trust this workspace?']);
  await review.getByRole('button', { name: 'Close' }).click();
  // The person's yes is applied by main after the question: Run all waits until it has been.
  await studio.page.getByText('Restricted mode:').first().waitFor({ state: 'hidden' });
  await studio.page.getByRole('button', { name: 'Run all' }).click();
  await studio.page.locator('.tests-progress').getByText('1 of 1 case · 1 passed, 0 failed · finished').waitFor();
}

/**
 * Evaluated in the page: every region of the Tests view (its run panel, its dialogs, the page)
 * whose content is wider than its box, every control cut off at the right by the window or by an
 * ancestor that hides what overflows it, and a dialog's controls below the window's bottom.
 */
export const TESTS_VIEW_CLIPPED = `(() => {
  const found = [];
  for (const selector of ['html', 'body', '.app-header', '.header-actions', '.app-body', '.workspace-area',
    '.tests-view', '.tests-scroll', '.tests-progress', '.tests-body', '.tests-list', '.test-details',
    '.run-panel', '.run-panel-header', '.tab-panel', '.modal', '.modal-body']) {
    for (const element of document.querySelectorAll(selector)) {
      if (element.scrollWidth > element.clientWidth) found.push(selector + ': ' + element.scrollWidth + ' > ' + element.clientWidth);
    }
  }
  for (const control of document.querySelectorAll('button, input, [role="option"], [role="tab"], .test-status')) {
    const box = control.getBoundingClientRect();
    if (box.width === 0) continue;
    let right = window.innerWidth;
    // A modal dialog is drawn in the top layer: nothing outside it clips it.
    for (let parent = control.parentElement; parent && parent.tagName !== 'DIALOG'; parent = parent.parentElement) {
      const overflow = getComputedStyle(parent).overflowX;
      if (overflow === 'hidden' || overflow === 'clip') {
        right = Math.min(right, parent.getBoundingClientRect().right);
        break;
      }
    }
    // A dialog scrolls nothing: its controls must also fit above the window's bottom edge.
    const below = control.closest('.modal') !== null && box.bottom > window.innerHeight + 0.5;
    if (box.right > right + 0.5 || below)
      found.push((control.textContent.trim() || control.getAttribute('aria-label') || control.tagName) + ' ends at ' + box.right + ',' + box.bottom);
  }
  return found;
})()`;
