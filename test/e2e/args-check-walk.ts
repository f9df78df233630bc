import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../common/json.js';
import { describeArgumentProblem } from '../../common/studio-schemas.js';
import { type ArgsCheckTool, argsCheckToolsYaml } from '../fixtures/args-check-corpus.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

type Verdict = { valid: true } | { problems: string[] } | 'checking';
type Wanted = Verdict | 'not JSON';

/**
 * Runs in the page. Without `wanted`: the verdict `element`'s edit box shows (`checking` while it
 * waits for the core). With it: whether that verdict is the one wanted.
 */
function verdictIn({ element, wanted }: { element: unknown; wanted?: Wanted }): Verdict | boolean {
  // The Node-side tsconfig has no DOM types, so the little used here is spelled out.
  type Node = {
    textContent: string | null;
    querySelector(s: string): Node | null;
    querySelectorAll(s: string): Iterable<Node>;
  };
  const card = element as Node;
  const problems = card.querySelector('ul[aria-label="Argument problems"]');
  const shown: Verdict = card.querySelector('.edit-arguments .ok-text')
    ? { valid: true }
    : problems
      ? { problems: [...problems.querySelectorAll('li')].map((item) => item.textContent ?? '') }
      : 'checking';
  if (wanted === undefined) return shown;
  if (wanted === 'not JSON')
    return typeof shown === 'object' && 'problems' in shown && /^not JSON/.test(shown.problems[0] ?? '');
  return JSON.stringify(shown) === JSON.stringify(wanted);
}

/** What the card's edit box shows. */
async function shownVerdict(card: Locator): Promise<Verdict> {
  const element = await card.elementHandle();
  try {
    return (await card.page().evaluate(verdictIn, { element })) as Verdict;
  } finally {
    await element.dispose();
  }
}

/**
 * Waits in the page (one round trip, instead of a poll from Node per try) until `card` shows the
 * verdict wanted; when it does not in time, fails with what the card shows.
 */
async function waitForVerdict(card: Locator, wanted: Wanted, what: string): Promise<void> {
  const element = await card.elementHandle();
  try {
    await card.page().waitForFunction(verdictIn, { element, wanted }, { timeout: 30_000 });
  } catch {
    const shown = await shownVerdict(card);
    if (wanted === 'not JSON') expect(shown, what).toMatchObject({ problems: [expect.stringMatching(/^not JSON/)] });
    else expect(shown, what).toEqual(wanted);
  } finally {
    await element.dispose();
  }
}

/**
 * The walk through the shared corpus: for each of `tools`, a trial's approval card, whose edit box
 * must show the core's verdict for every valid and invalid arguments of that tool. The corpus is
 * split over two test files (studio-args-check*.test.ts), which run in parallel.
 */
export function describeArgsCheckWalk(
  title: string,
  tools: readonly ArgsCheckTool[],
  options: { approveEdit: boolean },
): void {
  describe(title, () => {
    let folder = '';
    let studio: StudioHarness;

    beforeAll(async () => {
      folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-args-check-'));
      await mkdir(path.join(folder, 'agents'));
      await writeFile(path.join(folder, 'agents', 'hello.lua'), "log('hello')\n");
      await writeFile(path.join(folder, 'tools.yaml'), argsCheckToolsYaml());
      studio = new StudioHarness({ chooseFolder: async () => folder, viewport: { width: 1440, height: 900 } });
      await studio.open();
      // A bound for a loaded machine (both cores busy), not a measure: each step waits on the page.
      studio.page.setDefaultTimeout(30_000);
      await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
      await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
      // A new folder of command tools is restricted, where every call is refused before a card:
      // the person trusts it first, as they would before trying its tools.
      await studio.trustWorkspace();
      await studio.showRunTab('Approvals');
    });
    afterAll(async () => {
      await studio.close();
      await rm(folder, { recursive: true, force: true });
    });

    it('for every schema and arguments of the shared corpus', async () => {
      // One trial per tool, all started at once so their cards arm together; each trial (through the
      // page's own bridge) asks for approval like a script's call.
      const runIds = await studio.page.evaluate(
        async (trials) => {
          const api = (globalThis as unknown as { promptforge: Record<string, (r: unknown) => Promise<unknown>> })
            .promptforge;
          return Promise.all(
            trials.map(async ({ alias, argsJson }) => {
              const result = (await api['tool:trial']!({ alias, arguments: JSON.parse(argsJson) })) as {
                ok: boolean;
                value: { runId: string };
              };
              if (!result.ok) throw new Error(JSON.stringify(result));
              return result.value.runId;
            }),
          );
        },
        tools.map((tool) => ({ alias: tool.alias, argsJson: JSON.stringify(tool.valid[0]) })),
      );
      for (const [index, tool] of tools.entries()) {
        const runId = runIds[index]!;
        const cardSelector = `.approval-card[data-run-id="${runId}"][data-call-id="call-1"]`;
        const card = studio.page.locator(cardSelector);
        await card.filter({ hasText: tool.alias }).waitFor();
        const editor = `${cardSelector} .cm-content`;
        await pressWhenArmed({
          card,
          button: card.getByRole('button', { name: 'E Edit then approve' }),
          done: studio.page.locator(editor),
        });

        const cases: JsonObject[] = [...tool.valid, ...tool.invalid.map((entry) => entry.args)];
        for (const args of cases) {
          const what = `${tool.alias} ${JSON.stringify(args)}`;
          // Text that is not JSON first, so the verdict read next can only be the new text's.
          await studio.replaceEditorText(editor, '{');
          await waitForVerdict(card, 'not JSON', what);
          await studio.replaceEditorText(editor, JSON.stringify(args));
          const core = await studio.service.checkToolArguments(tool.alias, args, runId);
          const expected: Verdict = core.valid
            ? { valid: true }
            : { problems: core.problems.map(describeArgumentProblem) };
          await waitForVerdict(card, expected, what);
          expect(await card.getByRole('button', { name: 'Approve edited' }).isDisabled(), what).toBe(!core.valid);
        }
        if (tool.alias === 'trip') await studio.screenshot('approval-edit-core-verdict');
        studio.service.stopRun(runId);
        await card.waitFor({ state: 'detached' });
      }
    }, 300_000);

    if (options.approveEdit)
      it('approves an edit the core accepts, and the call runs with it', async () => {
        const { runId } = await studio.service.tryTool('trip', { from: 'Oslo', to: 'Rome' });
        const card = studio.page.locator('.approval-card', { hasText: 'trip' });
        await pressWhenArmed({
          card,
          button: card.getByRole('button', { name: 'E Edit then approve' }),
          done: card.locator('.cm-content'),
        });
        await studio.replaceEditorText('.approval-card .cm-content', '{ "from": "Bergen", "to": "Rome" }');
        await card.getByText("The arguments fit the tool's parameters.").waitFor();
        await pressWhenArmed({
          card,
          button: card.getByRole('button', { name: 'Approve edited' }),
          done: 'card-gone',
        });
        const events = await studio.waitForTranscriptEvent(runId, 'run-end');
        expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
          decision: { kind: 'approve-edited', arguments: { from: 'Bergen', to: 'Rome' } },
        });
        expect(events.find((event) => event.type === 'tool-output')).toMatchObject({ alias: 'trip', output: 'ran' });
        expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'ok' });
      });

    it('ran without console errors or CSP violations', () => {
      expect(studio.pageErrors).toEqual([]);
    });
  });
}
