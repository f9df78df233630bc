import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { ApprovalCards } from './approval-fixtures.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// How an approval card draws arguments that look like other arguments: words that mix scripts
// (a Cyrillic "а" in a host), stacks of combining marks, right-to-left letters next to digits;
// and how the "Edit then approve" editor draws hidden characters. The drawing rules themselves
// are tested in Node (test/node/renderer/run/argument-display.test.ts).

// The tool sink, and the workspace around the agents: approval-fixtures.ts.

const agents: Record<string, string> = {
  // A host with a Cyrillic "а", a key with a Greek "ο", plain Russian, a stack of accents, and
  // Arabic letters before an account number.
  lookalike: `local ok, out = pcall(tools.call, 'sink', {
  url = 'https://p\\u{430}ypal.com/pay',
  ['t\\u{3BF}ken'] = 'x',
  note = '\\u{41F}\\u{440}\\u{438}\\u{432}\\u{435}\\u{442}',
  path = '~/e' .. string.rep('\\u{301}', 30),
  account = '\\u{62D}\\u{633}\\u{627}\\u{628} 4471-0093',
})
log(ok and out or tostring(out))
`,
  // A right-to-left override and a word joiner, for the editor.
  bidi: `local ok, out = pcall(tools.call, 'sink', { file = 'invoice\\u{202E}fdp.exe', name = 'release\\u{2060}-notes' })
log(ok and out or tostring(out))
`,
};

type Theme = 'dark' | 'light';

describe('approval card: lookalike arguments are drawn so that they look different', () => {
  const studio = new StudioHarness({ viewport: { width: 1280, height: 900 } });
  const cards = new ApprovalCards(studio);
  const start = (agent: string): Promise<string> => cards.start(agent);
  const cardOf = (runId: string) => cards.cardOf(runId);
  const armed = (runId: string) => cards.armed(runId);

  const useTheme = (theme: Theme): Promise<void> => studio.useTheme(theme);

  beforeAll(() => cards.setUp({ agents }));
  afterEach(async () => {
    await cards.stopStarted();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('escapes and marks the foreign letters of mixed-script words, in values and keys, and escapes a stack of marks', async () => {
    const runId = await start('lookalike');
    await armed(runId).waitFor();
    const box = cardOf(runId).locator('pre.code-block');
    const text = (await box.textContent()) ?? '';
    expect(text).toContain('"https://p\\u0430ypal.com/pay"');
    expect(text).toContain('"t\\u03bfken": "x"');
    // Plain Russian is one script: drawn as it is.
    expect(text).toContain('"Привет"');
    expect(text).toContain('"~/e\\u0301×30"');
    const marker = (name: string) => box.getByRole('img', { name, exact: true });
    expect(await marker('U+0430 Cyrillic small letter, like Latin a').textContent()).toBe('\\u0430');
    expect(await marker('U+03BF Greek small letter, like Latin o').textContent()).toBe('\\u03bf');
    expect(await marker('30 times U+0301 combining mark').textContent()).toBe('\\u0301×30');
    // The mixed words are underlined as a whole, and say what they mix.
    const words = box.locator('.mixed-script');
    expect((await words.allTextContents()).sort()).toEqual(['p\\u0430ypal', 't\\u03bfken']);
    expect(await words.filter({ hasText: 'ken' }).getAttribute('title')).toBe(
      'This word mixes Latin and Greek letters',
    );
  });

  it('lays strings out left to right in the order sent, and says why Arabic words look reversed', async () => {
    const runId = await start('lookalike');
    await armed(runId).waitFor();
    const order = (await studio.page.evaluate(`(() => {
      const pre = document.querySelector('.approval-card[data-run-id="${runId}"] pre.code-block');
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.data.indexOf('\\u062d');
        if (at < 0) continue;
        const left = (offset) => {
          const range = document.createRange();
          range.setStart(node, offset);
          range.setEnd(node, offset + 1);
          return range.getBoundingClientRect().left;
        };
        // The first Arabic letter, the last one, and the first digit.
        return [left(at), left(at + 3), left(at + 5)];
      }
      return null;
    })()`)) as number[];
    expect(order[0]).toBeLessThan(order[1]!);
    expect(order[1]).toBeLessThan(order[2]!);
    expect(await cardOf(runId).locator('.arguments-note').textContent()).toContain('right-to-left');
  });

  it('draws hidden characters in the "Edit then approve" editor as named escapes, and passes axe in both themes', async () => {
    const lookalike = await start('lookalike');
    const bidi = await start('bidi');
    await armed(lookalike).waitFor();
    const editor = cardOf(bidi).locator('.json-editor .cm-content');
    await pressWhenArmed({
      card: cardOf(bidi),
      button: cardOf(bidi).getByRole('button', { name: 'E Edit then approve' }),
      done: editor,
    });
    const override = editor.getByRole('img', { name: 'U+202E right-to-left override', exact: true });
    expect(await override.textContent()).toBe('\\u202e');
    expect(await editor.getByRole('img', { name: 'U+2060 word joiner', exact: true }).textContent()).toBe('\\u2060');
    // The escapes are the editor's drawing only: the text edited is the text sent.
    expect(await editor.textContent()).not.toMatch(/[\u202e\u2060]/);
    for (const theme of ['dark', 'light'] as const) {
      await useTheme(theme);
      // Boxed like the card's escapes, in the body colour.
      const style = await override.evaluate((element) => {
        // In the page (this file is type-checked without the DOM library).
        const page = globalThis as unknown as {
          getComputedStyle(node: unknown): { outlineStyle: string; color: string };
          document: { body: unknown };
        };
        const computed = page.getComputedStyle(element);
        return {
          outline: computed.outlineStyle,
          color: computed.color,
          body: page.getComputedStyle(page.document.body).color,
        };
      });
      expect(style.outline).toBe('dashed');
      expect(style.color).toBe(style.body);
      await expectNoSeriousAxeViolations(studio.page, `approval cards with lookalike arguments (${theme})`);
      await studio.screenshot(`approval-lookalike-arguments-${theme}`);
    }
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
