import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractMethodNames } from '../../common/contract.js';
import { StudioHarness } from './bridge.js';

/**
 * A hostile script in the studio's page (as if an XSS had landed), using nothing but what the page
 * has: `window.promptforge` and the DOM. Each thing it tries is the person's alone, and is refused
 * by the main process, whatever the page does.
 */

type PageResult = { ok: boolean; value?: unknown; error?: { code: string; message: string } };

describe('a page script tries to act as the person', () => {
  const studio = new StudioHarness();
  let secretFolder = '';

  /** Calls `method` from inside the page, as a script there would. */
  const fromPage = (method: string, request: unknown): Promise<PageResult> =>
    studio.page.evaluate(
      ([name, payload]) =>
        (globalThis as unknown as { promptforge: Record<string, (request: unknown) => Promise<PageResult>> })
          .promptforge[name as string]!(payload),
      [method, request] as const,
    );

  beforeAll(async () => {
    secretFolder = await mkdtemp(path.join(os.tmpdir(), 'promptforge-never-chosen-'));
    await writeFile(path.join(secretFolder, 'private.lua'), '-- the person’s own notes\n');
    await studio.open();
    await studio.openExampleWorkspace();
  });
  afterAll(async () => {
    await studio.close();
    await rm(secretFolder, { recursive: true, force: true });
  });

  it('cannot open a folder nobody chose, by any spelling', async () => {
    const example = studio.service.workspaceRoot!;
    for (const requested of [secretFolder, `${example}/../..`, `${example}/`, example.toUpperCase()]) {
      const result = await fromPage('workspace:open', { path: requested });
      expect(result.error?.code, requested).toBe('not-chosen');
    }
    expect(studio.service.workspaceRoot).toBe(example);
    const read = await fromPage('file:read', { path: '../../private.lua' });
    expect(read.ok).toBe(false);
  });

  it('cannot store, replace or delete a key: without a press nothing is asked; riding on one, main asks the person, and a no changes nothing', async () => {
    studio.person.forgetInput();
    const asked = studio.person.asked.length;
    expect((await fromPage('keys:set', { provider: 'openai', key: 'sk-attacker-key-0000000000000' })).error?.code).toBe(
      'no-person-input',
    );
    expect(studio.person.asked.length).toBe(asked);
    studio.person.answers.push(false, false);
    // The script waits for the person's next click anywhere (here, on the page's heading) and rides on it.
    await studio.page.getByRole('heading', { level: 1 }).click();
    const stored = await fromPage('keys:set', { provider: 'openai', key: 'sk-attacker-key-0000000000000' });
    expect(stored.error?.code).toBe('cancelled');
    expect(studio.person.asked[asked]?.title).toBe('Store your OpenAI key?');
    const status = (await fromPage('keys:status', {})) as {
      value: { keys: Array<{ provider: string; set: boolean }> };
    };
    expect(status.value.keys.find((key) => key.provider === 'openai')?.set).toBe(false);
    // Trusting the workspace is the person's too. (Revoking is the page's to ask: it only takes trust away.)
    expect(await fromPage('trust:revoke', { path: studio.service.workspaceRoot })).toMatchObject({ ok: true });
    const trust = (await fromPage('trust:status', {})) as { value: { digest: string } };
    // The press was used: trusting needs one of its own.
    expect((await fromPage('trust:grant', { digest: trust.value.digest })).error?.code).toBe('no-person-input');
    await studio.page.getByRole('heading', { level: 1 }).click();
    const granted = await fromPage('trust:grant', { digest: trust.value.digest });
    expect(granted).toMatchObject({ ok: true, value: { granted: false } });
    expect(studio.person.asked[asked + 1]?.title).toBe('Trust this workspace?');
  });

  it('the person who cancels in Credentials reads that nothing was stored', async () => {
    studio.person.answers.push(false);
    await studio.page.getByRole('button', { name: 'Credentials' }).click();
    const row = studio.page.getByRole('table', { name: 'Provider keys' }).locator('tr[data-provider="openai"]');
    await row.getByLabel('OpenAI API key').fill('sk-typed-by-the-person-1234567890');
    await row.getByRole('button', { name: 'Set OpenAI key' }).click();
    await studio.waitForText('Nothing was stored');
    expect(await row.getByLabel('OpenAI key status').textContent()).toBe('not set');
  });

  it('cannot decide a waiting call itself, even after synthetic clicks and key presses: main counts only trusted input', async () => {
    // The person trusts the example again (a test above revoked it), so its command tool may run once approved.
    if ((await studio.call('trust:status', {})).state !== 'trusted') await studio.trustWorkspace();
    const { runId } = await studio.call('tool:trial', { alias: 'read_page', arguments: { name: 'release-notes' } });
    // The header says a call is waiting once main queued it.
    await studio.waitForText('waiting for your approval');
    const [pending] = await studio.service.listApprovals();
    expect(pending?.runId).toBe(runId);
    // Whatever the person pressed before is long past; the harness counts only trusted presses, as
    // Electron's input-event does (the harness would count the script's events if it listened to the DOM).
    studio.person.forgetInput();
    try {
      const result = await studio.page.evaluate(
        async ([run, call]) => {
          const page = globalThis as unknown as {
            document: { body: { dispatchEvent(event: unknown): boolean }; activeElement: unknown };
            MouseEvent: new (type: string, init: Record<string, unknown>) => unknown;
            KeyboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
            PointerEvent: new (type: string, init: Record<string, unknown>) => unknown;
            dispatchEvent(event: unknown): boolean;
            promptforge: Record<string, (request: unknown) => Promise<PageResult>>;
          };
          // Events a script makes are no input the window received from the operating system.
          for (const target of [page.document.body, page])
            for (const event of [
              new page.PointerEvent('pointerdown', { bubbles: true }),
              new page.MouseEvent('mousedown', { bubbles: true }),
              new page.MouseEvent('click', { bubbles: true }),
              new page.KeyboardEvent('keydown', { key: 'a', bubbles: true }),
            ])
              target.dispatchEvent(event);
          return page.promptforge['approval:decide']!({ runId: run, callId: call, decision: { kind: 'approve' } });
        },
        [runId, pending!.callId] as const,
      );
      expect(result.error?.code).toBe('no-person-input');
      expect((await studio.service.listApprovals()).map((entry) => entry.callId)).toEqual([pending!.callId]);
    } finally {
      await studio.call('run:stop', { runId });
    }
  });

  it('cannot reach Node, Electron or the bridge’s insides, nor change the API it was given', async () => {
    const seen = await studio.page.evaluate(() => {
      const page = globalThis as unknown as Record<string, unknown>;
      const api = page['promptforge'] as Record<string, unknown>;
      const original = api['approval:decide'];
      try {
        api['approval:decide'] = () => Promise.resolve({ ok: true, value: {} });
        delete api['keys:set'];
      } catch {
        // A frozen object refuses in strict code; either way nothing may change.
      }
      const replaced = api['approval:decide'] !== original || !('keys:set' in api);
      return {
        keys: Object.keys(api).sort(),
        require: typeof page['require'],
        process: typeof page['process'],
        replaced,
      };
    });
    expect(seen).toEqual({
      keys: [...contractMethodNames, 'on'].sort(),
      require: 'undefined',
      process: 'undefined',
      replaced: false,
    });
  });

  it('an iframe it makes gets no API of its own', async () => {
    const inFrame = await studio.page.evaluate(async () => {
      const page = globalThis as unknown as {
        document: {
          createElement(tag: string): {
            srcdoc: string;
            contentWindow: Record<string, unknown> | null;
            addEventListener(type: string, listener: () => void): void;
          };
          body: { appendChild(node: unknown): void };
        };
      };
      const frame = page.document.createElement('iframe');
      frame.srcdoc = '<p>frame</p>';
      const loaded = new Promise<void>((resolve) => frame.addEventListener('load', () => resolve()));
      page.document.body.appendChild(frame);
      await loaded;
      return typeof frame.contentWindow?.['promptforge'];
    });
    expect(inFrame).toBe('undefined');
  });
});
