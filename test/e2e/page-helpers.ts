/** Page helpers of the e2e harness (test/e2e/bridge.ts): editing, where focus is and went, what a panel or a transcript shows. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright';

/**
 * Replaces the whole text of the CodeMirror editor matched by `selector` (its `.cm-content`), the
 * way a person does it: select all, then paste. (Playwright's insertText goes through Chrome's
 * contenteditable editing, which adds style attributes that the CSP then reports.)
 */
export async function replaceEditorText(page: Page, selector: string, text: string): Promise<void> {
  const content = page.locator(selector);
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await content.evaluate((element, pasted) => {
    // Runs in the page; the Node-side tsconfig has no DOM types, so they are spelled out here.
    const page = globalThis as unknown as {
      DataTransfer: new () => { setData(type: string, value: string): void };
      ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
    };
    const data = new page.DataTransfer();
    data.setData('text/plain', pasted);
    (element as unknown as { dispatchEvent(event: unknown): boolean }).dispatchEvent(
      new page.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

/**
 * Describes the element that has focus, looking inside shadow roots (the editors live there):
 * `TAG.class1.class2[aria-label]`, or `BODY` when nothing has focus.
 */
export function focusedElement(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    let element = document.activeElement;
    while (element && element.shadowRoot && element.shadowRoot.activeElement) element = element.shadowRoot.activeElement;
    if (!element) return 'none';
    const label = element.getAttribute('aria-label');
    return element.tagName + [...element.classList].map((name) => '.' + name).join('') + (label ? '[' + label + ']' : '');
  })()`);
}

/**
 * Starts recording every focus change in the page (focusin and focusout, inside shadow roots
 * too); {@link focusChanges} returns what was recorded since.
 */
export async function recordFocusChanges(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const log = (globalThis.__pfFocusLog = []);
    const note = (event) => {
      const target = event.composedPath()[0];
      log.push(event.type + ' ' + (target && target.tagName ? target.tagName + '.' + [...target.classList].join('.') : String(target)));
    };
    document.addEventListener('focusin', note, true);
    document.addEventListener('focusout', note, true);
    window.addEventListener('blur', () => log.push('window blur'));
  })()`);
}

/** The focus changes recorded since {@link recordFocusChanges}. */
export function focusChanges(page: Page): Promise<string[]> {
  return page.evaluate('globalThis.__pfFocusLog ?? []');
}

/** Waits for the About panel's version list and returns its rows as `label -> value`. */
export async function waitForAboutDetails(page: Page): Promise<Record<string, string>> {
  const panel = page.getByRole('complementary', { name: 'About' });
  await panel.getByRole('definition').first().waitFor();
  const rows = await panel
    .locator('.details-row')
    .evaluateAll((elements) =>
      elements.map((element) => [
        element.querySelector('dt')?.textContent ?? '',
        element.querySelector('dd')?.textContent ?? '',
      ]),
    );
  return Object.fromEntries(rows);
}

/** Waits until run `runId`'s transcript in workspace `root` holds an event of `type`; returns its events. */
export async function waitForTranscriptEvent(
  root: string,
  runId: string,
  type: string,
): Promise<Array<Record<string, unknown>>> {
  const file = path.join(root, 'runs', `${runId}.jsonl`);
  for (;;) {
    const events = existsSync(file)
      ? (await readFile(file, 'utf8'))
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
    if (events.some((event) => event['type'] === type)) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * An expression for `page.evaluate`: what is cut off inside the first element matching `selector`
 * (itself and everything in it, or only its `parts`): an element past the window's right side
 * (`edge: 'window'`) or past that element's right side (`edge: 'box'`), and text cut by its own
 * box. Empty when nothing is.
 */
export function clippedInside(selector: string, edge: 'window' | 'box', parts?: string): string {
  return `(() => {
  const root = document.querySelector(${JSON.stringify(selector)});
  const right = ${edge === 'window' ? 'window.innerWidth' : 'root.getBoundingClientRect().right'};
  const found = [];
  for (const element of ${parts === undefined ? "[root, ...root.querySelectorAll('*')]" : `root.querySelectorAll(${JSON.stringify(parts)})`}) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || element.closest('.visually-hidden')) continue;
    const name = element.tagName + '.' + element.className;
    if (box.right > right + 1) found.push(name + ' crosses the ${edge === 'window' ? 'window' : 'region'} side');
    const style = getComputedStyle(element);
    if (!/(auto|scroll)/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1)
      found.push(name + ' cuts its text');
  }
  return found;
})()`;
}
