import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { mapSecretStore } from '../fixtures/stubs.js';

/**
 * A model whose requests, and the OpenAI key, would go to another origin (a loopback server
 * standing in for someone's proxy): main asks when the person starts a run, remembers a no so the
 * page cannot ask again and again, and the person allows it from the Trust view.
 */
describe('studio: a model’s new destination is asked about once, and allowed from Trust', () => {
  const key = 'sk-e2e-key-origin-0123456789abcdef';
  let folder = '';
  let server: ScriptedServer;
  let studio: StudioHarness;
  const page = () => studio.page;
  const titles = () => studio.person.asked.map((question) => question.title);

  beforeAll(async () => {
    server = await startScriptedServer(() => ({ content: 'hello from the other origin' }));
    folder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-key-origin-'));
    await mkdir(path.join(folder, 'agents'));
    await writeFile(path.join(folder, 'promptforge.yaml'), 'defaultModel: elsewhere\n');
    await writeFile(
      path.join(folder, 'models.yaml'),
      `elsewhere:\n  provider: openai\n  model: gpt-test\n  baseUrl: ${server.url}\n`,
    );
    await writeFile(
      path.join(folder, 'agents', 'chat.lua'),
      "local reply = models.chat({ { role = 'user', content = 'hi' } })\nlog(reply.content)\n",
    );
    studio = new StudioHarness({
      chooseFolder: async () => folder,
      secrets: mapSecretStore({ openai: key }),
      viewport: { width: 1024, height: 700 },
    });
    await studio.open();
    await page().getByRole('button', { name: 'Open a folder…' }).click();
    await page().getByRole('region', { name: 'Editor agents/chat.lua' }).waitFor();
  });
  afterAll(async () => {
    await studio.close();
    await server.close();
    await rm(folder, { recursive: true, force: true });
  });

  const origin = () => new URL(server.url).origin;
  /** The run ids `run:start` answered the page, in order. */
  const runStarts = () =>
    studio.calls.flatMap((call, index) => {
      const result = studio.results[index] as { ok: boolean; value?: { runId?: string } };
      return call.method === 'run:start' && result.ok && result.value?.runId ? [result.value.runId] : [];
    });

  it('asks when the person clicks Run; a no sends nothing, and the next Run does not ask again', async () => {
    studio.person.answers.push(false);
    await page().getByRole('button', { name: '▶ Run' }).click();
    expect(await studio.waitForRunEnd()).toBe('error');
    expect(titles()).toEqual([`Send elsewhere's requests to ${origin()}?`]);
    await studio.waitForText("You said no to this in the studio's dialog");
    // Run again (a press of its own, as a page riding on the person's keys would have): no question.
    await page().getByRole('button', { name: '▶ Run' }).click();
    await expect.poll(() => runStarts().length).toBe(2);
    const [, second] = runStarts();
    const events = await studio.waitForTranscriptEvent(second!, 'run-end');
    expect(events.at(-1)).toMatchObject({
      status: 'error',
      error: { message: expect.stringContaining('You said no') },
    });
    expect(titles()).toHaveLength(1);
    expect(server.requests).toEqual([]);
  });

  it('the Trust view lists the origin the person said no to, and Allow… asks in main’s dialog', async () => {
    await page().getByRole('button', { name: 'Trust', exact: true }).click();
    const view = page().getByRole('region', { name: 'Trust', exact: true });
    const wanted = view.getByRole('table', { name: "Origins this workspace's models want" });
    const row = wanted.locator('tr[data-model="elsewhere"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('You said no (not asked again)');
    expect(await row.textContent()).toContain(origin());
    for (const theme of ['dark', 'light'] as const) {
      await studio.useTheme(theme);
      await studio.screenshot(`trust-wanted-origin-${theme}`);
      await expectNoSeriousAxeViolations(page(), `the Trust view with a wanted origin (${theme})`);
    }
    await studio.useTheme('dark');

    // A no in the dialog keeps it as it was.
    studio.person.answers.push(false);
    await row.getByRole('button', { name: `Allow elsewhere's requests to ${origin()}…` }).click();
    await view.getByText(`Nothing was allowed: elsewhere's requests still do not go to ${origin()}.`).waitFor();
    expect(titles()).toHaveLength(2);
    // A yes approves it for the OpenAI key; the row moves to the approved origins.
    await row.getByRole('button', { name: `Allow elsewhere's requests to ${origin()}…` }).click();
    await view.getByText(`elsewhere may send its requests, with your OpenAI key, to ${origin()}.`).waitFor();
    expect(titles()).toEqual(Array.from({ length: 3 }, () => `Send elsewhere's requests to ${origin()}?`));
    await wanted.waitFor({ state: 'detached' });
    await view.getByRole('table', { name: 'Approved key origins' }).locator(`tr[data-origin="${origin()}"]`).waitFor();
  });

  it('the next run sends the key there without asking', async () => {
    await studio.openAgent('chat');
    await page().getByRole('button', { name: '▶ Run' }).click();
    await expect.poll(() => runStarts().length).toBe(3);
    const events = await studio.waitForTranscriptEvent(runStarts()[2]!, 'run-end');
    expect(events.at(-1)).toMatchObject({ status: 'ok' });
    await page().getByRole('region', { name: 'Run panel' }).getByText('hello from the other origin').first().waitFor();
    expect(server.authHeaders).toEqual([`Bearer ${key}`]);
    expect(titles()).toHaveLength(3);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
