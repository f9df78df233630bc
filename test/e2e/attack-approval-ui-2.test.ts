import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalCards } from './approval-fixtures.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// Second round of attacks on the approval card, after its arming and display fixes. Each test
// shows a way the card takes a decision the person did not deliberately make, or shows something
// other than what the tool receives. Every test fails while the defect it names is there.

// The tools peek_page and sink, and the workspace around the agents: approval-fixtures.ts.

const agents: Record<string, string> = {
  'ask-a': `local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
log(ok and #page or tostring(page))
`,
  // A right-to-left override ("invoice", then "fdp.exe" drawn backwards as "exe.pdf") and a word
  // joiner: the card draws both as escapes.
  bidi: `local ok, out = pcall(tools.call, 'sink', { file = 'invoice\\u{202E}fdp.exe', name = 'release\\u{2060}-notes' })
log(ok and out or tostring(out))
`,
  // Arabic letters, then an account number: no control character at all.
  arabic: `local ok, out = pcall(tools.call, 'sink', { account = '\\u{62D}\\u{633}\\u{627}\\u{628} 4471-0093' })
log(ok and out or tostring(out))
`,
  'plain-name': `local ok, out = pcall(tools.call, 'sink', { name = 'release-notes' })
log(ok and out or tostring(out))
`,
  // The same host, its first "a" a Cyrillic "а" (U+0430).
  'latin-host': `local ok, out = pcall(tools.call, 'sink', { url = 'https://paypal.com/pay' })
log(ok and out or tostring(out))
`,
  'cyrillic-host': `local ok, out = pcall(tools.call, 'sink', { url = 'https://p\\u{430}ypal.com/pay' })
log(ok and out or tostring(out))
`,
};

describe('attack, round 2: arming and drawing of the approval card', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const cards = new ApprovalCards(studio);
  const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
  const start = (agent: string): Promise<string> => cards.start(agent);
  const cardOf = (runId: string) => cards.cardOf(runId);
  const armed = (runId: string) => cards.armed(runId);
  /** Stops the page's timers (the arming delay among them) until `resume`. */
  const pause = async (): Promise<void> => {
    const now = (await studio.page.evaluate('Date.now()')) as number;
    await studio.page.clock.pauseAt(now + 1000);
  };
  const resume = () => studio.page.clock.resume();
  /** The output the sink tool printed: the arguments exactly as it received them. */
  const sinkReceived = async (runId: string): Promise<string> => {
    const events = await studio.waitForTranscriptEvent(runId, 'tool-output');
    const output = events.find((event) => event['type'] === 'tool-output');
    return JSON.stringify(output);
  };

  beforeAll(async () => {
    await cards.setUp({ agents, beforeWorkspace: () => studio.page.clock.install() });
  });
  afterEach(async () => {
    await resume();
    await cards.stopStarted();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('arms again a card that slides under the pointer when the list, scrolled to its end, gets shorter', async () => {
    const runs: string[] = [];
    for (let index = 0; index < 7; index += 1) runs.push(await start('ask-a'));
    await studio.waitForApprovalCards(7);
    for (const runId of runs) await armed(runId).waitFor();
    // One decision first, so the "Last decision" line is there and no longer moves the list.
    await cards.press(runs[0]!, 'A Approve');
    await studio.page.locator('.last-decision').waitFor();
    for (const runId of runs.slice(1)) await armed(runId).waitFor();
    const list = studio.page.locator('.approvals-list');
    await list.waitFor();
    const scrollable = await studio.page.evaluate(`new Promise((resolve) => {
      const list = document.querySelector('.approvals-list');
      const done = () => resolve(list.scrollHeight > list.clientHeight + 200);
      list.addEventListener('scrollend', done, { once: true });
      const before = list.scrollTop;
      list.scrollTop = list.scrollHeight;
      if (list.scrollTop === before) done();
    })`);
    expect(scrollable).toBe(true);
    // That scroll was the app's, not the person's: it moved every card, and they wait again.
    for (const runId of runs.slice(1)) await armed(runId).waitFor();

    // Time stands still from here: a card that moved cannot arm again during the test.
    await pause();
    const last = runs[runs.length - 1]!;
    const approve = cardOf(last).getByRole('button', { name: 'A Approve' });
    let x = 0;
    let y = 0;
    // The press that decides the last card, where its Approve button is: pressed again there if the
    // card moved meanwhile and ignored it (the clock runs on only while it waits to arm again).
    await pressWhenArmed({
      card: cardOf(last),
      button: approve,
      act: async () => {
        const box = (await approve.boundingBox())!;
        x = box.x + box.width / 2;
        y = box.y + box.height / 2;
        await studio.page.mouse.click(x, y);
      },
      done: 'card-gone',
      advance: () => studio.page.clock.runFor(900),
    });
    const decided = decideCalls();

    // The list got shorter; its scroll position was clamped, so the card above slid down into the
    // place of the decided one, its Approve button right under the pointer.
    const under = (await studio.page.evaluate(`(() => {
      const card = document.elementFromPoint(${x}, ${y})?.closest('.approval-card');
      const button = document.elementFromPoint(${x}, ${y})?.closest('button');
      return card ? { runId: card.dataset.runId, armed: card.dataset.armed, button: button?.textContent } : null;
    })()`)) as { runId: string; armed: string; button?: string } | null;
    expect(under?.runId).toBe(runs[runs.length - 2]);
    expect(under?.button).toBe('A Approve');
    // It moved on screen, so it must wait before it takes a click, like any card that moved.
    expect(under?.armed).toBe('false');
    // A single click in flight (not a double click) lands on it, and is ignored: the card says so.
    await studio.page.mouse.click(x, y);
    await cardOf(runs[runs.length - 2]!)
      .locator('.arming-notice', { hasText: /^Ignored: this card is arming/ })
      .waitFor();
    expect(decideCalls()).toBe(decided);
  });

  it('does not arm a card while the command palette covers the window', async () => {
    await studio.page.keyboard.press('ControlOrMeta+Shift+P');
    const palette = studio.page.locator('dialog[open]');
    await palette.waitFor();
    await pause();
    const runId = await start('ask-a');
    await cardOf(runId).waitFor({ state: 'attached' });
    // The card sits behind the modal palette for longer than the arming delay.
    await studio.page.clock.runFor(2000);
    await studio.page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    // The person sees the card for the first time now: it must not take a click yet.
    expect(await cardOf(runId).getAttribute('data-armed')).toBe('false');
  });

  it('shows the same escapes in the "Edit then approve" editor as on the card', async () => {
    const runId = await start('bidi');
    await armed(runId).waitFor();
    const card = cardOf(runId);
    // The card draws the override and the word joiner as escapes.
    const drawn = await card.locator('pre.code-block').textContent();
    expect(drawn).toContain('\\u202e');
    expect(drawn).toContain('\\u2060');
    const editor = card.locator('.json-editor .cm-content');
    await cards.press(runId, 'E Edit then approve', editor);
    // Where the editor draws the first and the last letter of "fdp.exe" (after U+202E).
    const place = (await studio.page.evaluate(`(() => {
      // The editor lives in a shadow root.
      const find = (root) => {
        const hit = root.querySelector('.cm-content');
        if (hit) return hit;
        for (const element of root.querySelectorAll('*')) {
          const inner = element.shadowRoot && find(element.shadowRoot);
          if (inner) return inner;
        }
        return null;
      };
      const content = find(document.querySelector('.approval-card[data-run-id="${runId}"] .json-editor'));
      const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.data.indexOf('fdp.exe');
        if (at < 0) continue;
        const left = (offset) => {
          const range = document.createRange();
          range.setStart(node, offset);
          range.setEnd(node, offset + 1);
          return range.getBoundingClientRect().left;
        };
        return { first: left(at), last: left(at + 'fdp.exe'.length - 1), rawJoiner: content.textContent.includes('\\u2060') };
      }
      return null;
    })()`)) as { first: number; last: number; rawJoiner: boolean };
    // The editor draws "invoiceexe.pdf": the text is reversed, and the word joiner is invisible.
    expect(place.first).toBeLessThan(place.last);
    expect(place.rawJoiner).toBe(false);
  });

  it('draws an account number in the order it is sent, next to Arabic letters', async () => {
    const runId = await start('arabic');
    await armed(runId).waitFor();
    const place = (await studio.page.evaluate(`(() => {
        const pre = document.querySelector('.approval-card[data-run-id="${runId}"] pre.code-block');
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.data.indexOf('4471-0093');
          if (at < 0) continue;
          const left = (offset) => {
            const range = document.createRange();
            range.setStart(node, offset);
            range.setEnd(node, offset + 1);
            return range.getBoundingClientRect().left;
          };
          return { first: left(at), second: left(at + 5) };
        }
        return null;
      })()`)) as { first: number; second: number };
    // The tool gets "4471-0093"; the card draws "0093-4471".
    expect(place.first).toBeLessThan(place.second);
  });

  it('draws two different hosts differently: a Cyrillic "а" is not a Latin "a"', async () => {
    const latin = await start('latin-host');
    const cyrillic = await start('cyrillic-host');
    await armed(latin).waitFor();
    await armed(cyrillic).waitFor();
    const shot = (runId: string) => cardOf(runId).locator('pre.code-block').screenshot({ animations: 'disabled' });
    // The arguments differ, but the two boxes are drawn pixel for pixel the same.
    expect((await shot(cyrillic)).equals(await shot(latin))).toBe(false);
  });

  it('refuses edited arguments with a duplicate key: the check does not pass the key the tool ignores', async () => {
    const runId = await start('plain-name');
    const card = cardOf(runId);
    await cards.press(runId, 'E Edit then approve', card.locator('.json-editor .cm-content'));
    // The person puts a safe name on top; the old one is still further down. JSON.parse keeps the
    // last: the tool would get "release-notes", not "draft".
    await studio.replaceEditorText(
      `.approval-card[data-run-id="${runId}"] .json-editor .cm-content`,
      '{\n  "name": "draft",\n  "name": "release-notes"\n}',
    );
    await card.locator('.ok-text, .problem-list').first().waitFor();
    expect(await card.locator('.ok-text').count()).toBe(0);
  });

  it('refuses edited numbers that JSON cannot carry exactly: the tool gets the number the person typed', async () => {
    const runId = await start('plain-name');
    const card = cardOf(runId);
    await cards.press(runId, 'E Edit then approve', card.locator('.json-editor .cm-content'));
    await studio.replaceEditorText(
      `.approval-card[data-run-id="${runId}"] .json-editor .cm-content`,
      '{\n  "name": "release-notes",\n  "account": 9007199254740993\n}',
    );
    await card.locator('.ok-text, .problem-list').first().waitFor();
    // Refusing the text is a fine answer; saying it fits and then sending another number is not.
    if ((await card.locator('.ok-text').count()) === 0) return;
    // "The arguments fit": approve them, and read what the tool got.
    await cards.press(runId, 'Approve edited');
    // The tool gets 9007199254740992: JSON.parse rounded the number the person typed and checked.
    expect(await sinkReceived(runId)).toContain('9007199254740993');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
