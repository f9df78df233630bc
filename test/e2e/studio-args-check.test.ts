import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../common/json.js';
import { describeArgumentProblem } from '../../common/studio-schemas.js';
import { ARGS_CHECK_CORPUS, argsCheckToolsYaml } from '../fixtures/args-check-corpus.js';
import { StudioHarness } from './bridge.js';

/** What the card's edit box shows: the verdict, or `checking` while it waits for the core. */
async function shownVerdict(card: Locator): Promise<{ valid: true } | { problems: string[] } | 'checking'> {
  if ((await card.locator('.edit-arguments .ok-text').count()) > 0) return { valid: true };
  const problems = card.getByRole('list', { name: 'Argument problems' });
  if ((await problems.count()) > 0) return { problems: await problems.locator('li').allTextContents() };
  return 'checking';
}

describe("studio: the approval card's edit box shows exactly the core's verdict", () => {
  let folder = '';
  let studio: StudioHarness;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-args-check-'));
    await mkdir(path.join(folder, 'agents'));
    await writeFile(path.join(folder, 'agents', 'hello.lua'), "log('hello')\n");
    await writeFile(path.join(folder, 'tools.yaml'), argsCheckToolsYaml());
    studio = new StudioHarness({ chooseFolder: async () => folder, viewport: { width: 1440, height: 900 } });
    await studio.open();
    studio.page.setDefaultTimeout(8000);
    await studio.page.getByRole('button', { name: 'Open a folder…' }).click();
    await studio.page.getByRole('region', { name: 'Editor agents/hello.lua' }).waitFor();
    await studio.showRunTab('Approvals');
  });
  afterAll(async () => {
    await studio.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('for every schema and arguments of the shared corpus', async () => {
    for (const tool of ARGS_CHECK_CORPUS) {
      // A trial of the tool (through the page's own bridge) asks for approval like a script's call.
      const runId = await studio.page.evaluate(
        async ({ alias, argsJson }) => {
          const api = (globalThis as unknown as { promptforge: Record<string, (r: unknown) => Promise<unknown>> })
            .promptforge;
          const result = (await api['tool:trial']!({ alias, arguments: JSON.parse(argsJson) })) as {
            ok: boolean;
            value: { runId: string };
          };
          if (!result.ok) throw new Error(JSON.stringify(result));
          return result.value.runId;
        },
        { alias: tool.alias, argsJson: JSON.stringify(tool.valid[0]) },
      );
      const card = studio.page.locator(`.approval-card[data-call-id="call-1"]`, { hasText: tool.alias });
      await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
      await card.getByRole('button', { name: 'E Edit then approve' }).click();
      const editor = `.approval-card[data-call-id="call-1"] .cm-content`;

      const cases: JsonObject[] = [...tool.valid, ...tool.invalid.map((entry) => entry.args)];
      for (const args of cases) {
        const what = `${tool.alias} ${JSON.stringify(args)}`;
        // Text that is not JSON first, so the verdict read next can only be the new text's.
        await studio.replaceEditorText(editor, '{');
        await expect
          .poll(() => shownVerdict(card), { message: what })
          .toMatchObject({ problems: [expect.stringMatching(/^not JSON/)] });
        await studio.replaceEditorText(editor, JSON.stringify(args));
        const core = await studio.service.checkToolArguments(tool.alias, args, runId);
        const expected = core.valid ? { valid: true } : { problems: core.problems.map(describeArgumentProblem) };
        await expect.poll(() => shownVerdict(card), { message: what }).toEqual(expected);
        expect(await card.getByRole('button', { name: 'Approve edited' }).isDisabled(), what).toBe(!core.valid);
      }
      if (tool.alias === 'trip') await studio.screenshot('approval-edit-core-verdict');
      studio.service.stopRun(runId);
      await card.waitFor({ state: 'detached' });
    }
    // About 30 edits, each checked by the core through the page's bridge: a minute or two on busy cores.
  }, 300_000);

  it('approves an edit the core accepts, and the call runs with it', async () => {
    const { runId } = await studio.service.tryTool('trip', { from: 'Oslo', to: 'Rome' });
    const card = studio.page.locator('.approval-card', { hasText: 'trip' });
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await card.getByRole('button', { name: 'E Edit then approve' }).click();
    await studio.replaceEditorText('.approval-card .cm-content', '{ "from": "Bergen", "to": "Rome" }');
    await card.getByText("The arguments fit the tool's parameters.").waitFor();
    await card.getByRole('button', { name: 'Approve edited' }).click();
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
