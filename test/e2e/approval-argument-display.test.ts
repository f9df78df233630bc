import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { ApprovalCards } from './approval-fixtures.js';
import { StudioHarness } from './bridge.js';

// How an approval card draws a call's arguments: hidden and direction-changing characters as
// named escape markers, long runs counted, and a notice when the arguments box is too short for
// them. The drawing rules themselves are tested in Node (test/node/renderer/run/argument-display.test.ts).

// The tools peek_page and sink, and the workspace around the agents: approval-fixtures.ts.

// A page a stranger wrote, with a right-to-left override and no-break spaces in its one line.
const evilPage = 'Notes\n\nPay invoice\u202Efdp.exe\u00A0\u00A0\u00A0\u00A0\u00A0 today\n';

const agents: Record<string, string> = {
  // Untrusted text with hidden characters, as a key and as a value: escape markers inside marks.
  tainted: `local page = tools.call('peek_page', { name = 'evil' })
local line = page:match('Pay[^\\n]*')
local ok, out = pcall(tools.call, 'sink', { [line] = line })
log(ok and out or tostring(out))
`,
  // Hidden characters in values and in a key, and a long run of spaces.
  hidden: `local ok, out = pcall(tools.call, 'sink', {
  file = 'invoice\\u{202E}fdp.exe',
  name = 'release\\u{200B}-notes',
  padded = 'a' .. string.rep(' ', 20) .. 'b',
  ['two\\u{2028}lines'] = 'v',
})
log(ok and out or tostring(out))
`,
  // More lines than the arguments box shows.
  long: `local items = {}
for i = 1, 60 do items[i] = 'item ' .. i end
local ok, out = pcall(tools.call, 'sink', { items = items })
log(ok and out or tostring(out))
`,
};

type Theme = 'dark' | 'light';

describe('approval card: the arguments are drawn so that nothing in them is hidden', () => {
  const studio = new StudioHarness({ viewport: { width: 1280, height: 800 } });
  const cards = new ApprovalCards(studio);
  const start = (agent: string): Promise<string> => cards.start(agent);
  const cardOf = (runId: string) => cards.cardOf(runId);
  const armed = (runId: string) => cards.armed(runId);

  const useTheme = (theme: Theme): Promise<void> => studio.useTheme(theme);

  beforeAll(() => cards.setUp({ agents, pages: { evil: evilPage } }));
  afterEach(async () => {
    await cards.stopStarted();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('draws hidden characters, in values and keys, as named escapes, and counts a long run of spaces', async () => {
    const runId = await start('hidden');
    await armed(runId).waitFor();
    const box = cardOf(runId).locator('pre.code-block');
    const text = (await box.textContent()) ?? '';
    expect(text).toContain('"invoice\\u202efdp.exe"');
    expect(text).toContain('"release\\u200b-notes"');
    expect(text).toContain('"a␠×20b"');
    expect(text).toContain('"two\\u2028lines": "v"');
    expect(text).not.toMatch(/[\u202e\u200b\u2028]/);
    const marker = (name: string) => box.getByRole('img', { name, exact: true });
    expect(await marker('U+202E right-to-left override').textContent()).toBe('\\u202e');
    expect(await marker('U+200B zero width space').textContent()).toBe('\\u200b');
    expect(await marker('U+2028 line separator').textContent()).toBe('\\u2028');
    expect(await marker('20 spaces').textContent()).toBe('␠×20');
    // Short arguments fit: no notice, and the box is not a tab stop.
    expect(await cardOf(runId).locator('.arguments-overflow').count()).toBe(0);
    expect(await box.getAttribute('tabindex')).toBeNull();
  });

  it('says so above the buttons when the arguments continue below the box, and lets the box scroll from the keyboard', async () => {
    const runId = await start('long');
    await armed(runId).waitFor();
    const box = cardOf(runId).locator('pre.code-block');
    const notice = cardOf(runId).locator('.arguments-overflow');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /^Arguments continue below: the box shows \d+ of \d+ lines\. Scroll it to read them all\.$/,
    );
    const [shown, total] = ((await notice.textContent())!.match(/\d+/g) ?? []).map(Number);
    // 60 items, the brackets and the key: 64 lines, of which the 280 px box shows about 14.
    expect(total).toBe(64);
    expect(shown).toBeLessThan(total!);
    // The notice sits between the box and the decision buttons.
    const noticeBox = (await notice.boundingBox())!;
    const approveBox = (await cardOf(runId).getByRole('button', { name: 'A Approve' }).boundingBox())!;
    expect(noticeBox.y).toBeGreaterThan((await box.boundingBox())!.y);
    expect(noticeBox.y).toBeLessThan(approveBox.y);
    expect(await box.getAttribute('tabindex')).toBe('0');
    expect(await box.getAttribute('aria-describedby')).toBe(await notice.getAttribute('id'));
  });

  it('passes axe in both themes with escape markers (tainted and not) and the overflow notice on screen', async () => {
    const hidden = await start('hidden');
    const tainted = await start('tainted');
    const long = await start('long');
    await armed(hidden).waitFor();
    await armed(tainted).waitFor();
    await armed(long).waitFor();
    // The stranger's line is marked as a key and as a value, its hidden characters escaped inside.
    const marks = cardOf(tainted).locator('mark.taint-span');
    expect(await marks.allTextContents()).toEqual([
      'Pay invoice\\u202efdp.exe\\u00a0×5 today',
      'Pay invoice\\u202efdp.exe\\u00a0×5 today',
    ]);
    expect(await marks.first().getByRole('img', { name: 'U+202E right-to-left override' }).count()).toBe(1);
    await cardOf(long).locator('.arguments-overflow').waitFor();
    for (const theme of ['dark', 'light'] as const) {
      await useTheme(theme);
      await expectNoSeriousAxeViolations(studio.page, `approval cards with escapes and overflow (${theme})`);
      await cardOf(tainted).scrollIntoViewIfNeeded();
      await studio.screenshot(`approval-hidden-characters-${theme}`);
    }
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
