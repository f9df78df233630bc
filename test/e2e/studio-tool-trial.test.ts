import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';
import { noSecrets } from '../fixtures/stubs.js';

/** A command tool that answers with the arguments it got: the form's output is visible as is. */
const echoArgs = `let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify({ got: JSON.parse(input) }));
`;

/** Tools with every kind of field the form generates, and one schema the form cannot show. */
const extraTools = `
shape:
  description: Answers with its arguments (a test tool with every kind of field)
  kind: command
  command: [node, tools/echo-args.mjs]
  trust: untrusted
  approval: auto
  parameters:
    type: object
    required: [label, size]
    properties:
      label: { type: string, description: The name printed on the shape }
      size: { type: integer, minimum: 1, description: Side length in cells }
      ratio: { type: number }
      filled: { type: boolean }
      colour: { enum: [red, green, blue] }
      origin:
        type: object
        required: [x]
        properties:
          x: { type: integer }
          y: { type: integer }
      tags: { type: array, items: { type: string } }
    additionalProperties: false

either:
  description: Takes a number or a string (a schema the form cannot lay out)
  kind: command
  command: [node, tools/echo-args.mjs]
  approval: auto
  parameters:
    type: object
    properties:
      value: { anyOf: [{ type: number }, { type: string }] }
`;

describe('studio: "Try a tool" calls any catalog tool from a generated form', () => {
  // A keychain that holds no key: the workspace's default model (openai) has none.
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 }, secrets: noSecrets });
  let root = '';

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.openExampleWorkspace();
    root = studio.service.workspaceRoot!;
    await writeFile(path.join(root, 'tools', 'echo-args.mjs'), echoArgs);
    await appendFile(path.join(root, 'tools.yaml'), extraTools);
    await tools()
      .getByRole('button', { name: /^shape\b/ })
      .waitFor();
    // The new command tools (approval: auto) make the example restricted, where they are refused
    // and even builtins ask: the person trusts the workspace as it is now.
    await studio.trustWorkspace();
  });
  afterAll(async () => {
    await studio.close();
  });

  const tools = () =>
    studio.page.getByRole('navigation', { name: 'Workspace explorer' }).getByRole('region', { name: 'Tools' });
  const trial = (alias: string) => studio.page.getByRole('region', { name: `Try tool ${alias}` });
  const raw = (alias: string) => trial(alias).getByLabel('Arguments as JSON');
  const rawValue = async (alias: string): Promise<unknown> => JSON.parse(await raw(alias).inputValue());
  const result = (alias: string) => trial(alias).getByRole('region', { name: 'Trial result' });
  const runIds = async (): Promise<string[]> => (await studio.service.state())!.runs.map((run) => run.runId);
  const callsOf = (method: string): number => studio.calls.filter((entry) => entry.method === method).length;

  it('tries a builtin: the form fills the JSON, Run shows the trusted output, History records it', async () => {
    await tools()
      .getByRole('button', { name: /^echo\b/ })
      .click();
    const view = trial('echo');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    await view.getByLabel('text', { exact: true }).fill('hello from the form');
    await expect.poll(() => rawValue('echo')).toEqual({ text: 'hello from the form' });
    await view.getByRole('button', { name: 'Run echo' }).click();
    await result('echo').locator('.status-pill', { hasText: 'ok' }).waitFor();
    expect(await result('echo').locator('.trust-badge').textContent()).toBe('trusted');
    expect(await result('echo').locator('.tool-output .inert-text').first().textContent()).toBe('hello from the form');
    // A trusted output has no envelope to show.
    expect(await result('echo').locator('.trial-envelope').count()).toBe(0);
    // Recorded like a run: it is in History, named after the tool.
    await expect
      .poll(async () => (await studio.service.state())!.runs.some((run) => run.script.includes('(trial of echo)')))
      .toBe(true);
    await studio.page.getByRole('button', { name: /^Runs history/ }).click();
    await studio.page
      .getByRole('table', { name: 'Runs' })
      .getByText(/trial of echo/)
      .first()
      .waitFor();
  });

  it('generates every kind of field, with required marks and help, and keeps the JSON in sync both ways', async () => {
    await tools()
      .getByRole('button', { name: /^shape\b/ })
      .click();
    const view = trial('shape');
    // Required fields are marked; descriptions are the help text.
    const mark = (name: string) => view.locator('.trial-field-label', { hasText: name }).locator('.required-mark');
    expect(await mark('label').count()).toBe(1);
    expect(await mark('ratio').count()).toBe(0);
    expect(await view.getByLabel('label', { exact: true }).getAttribute('aria-required')).toBe('true');
    await view.locator('.field-help', { hasText: 'Side length in cells' }).waitFor();
    // Missing required fields: the core's problems show next to those fields.
    await view.getByRole('status').filter({ hasText: '2 problems' }).waitFor();
    await expect.poll(() => view.getByLabel('label', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await view.getByLabel('label', { exact: true }).fill('square');
    await view.getByLabel('size', { exact: true }).fill('3');
    await view.getByLabel('ratio', { exact: true }).fill('0.5');
    await view.getByLabel('filled', { exact: true }).selectOption('true');
    await view.getByLabel('colour', { exact: true }).selectOption('green');
    await view.getByLabel('x', { exact: true }).fill('2');
    await view.getByRole('button', { name: '+ Add to tags' }).click();
    await view.getByLabel('tags[0]').fill('demo');
    await expect
      .poll(() => rawValue('shape'))
      .toEqual({
        label: 'square',
        size: 3,
        ratio: 0.5,
        filled: true,
        colour: 'green',
        origin: { x: 2 },
        tags: ['demo'],
      });
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();

    // Raw JSON edits show in the form.
    await raw('shape').fill(JSON.stringify({ label: 'triangle', size: 4, origin: { x: 1, y: 5 } }, null, 2));
    await expect.poll(() => view.getByLabel('label', { exact: true }).inputValue()).toBe('triangle');
    expect(await view.getByLabel('y', { exact: true }).inputValue()).toBe('5');
    expect(await view.getByLabel('filled', { exact: true }).inputValue()).toBe('');
    // JSON that does not parse leaves the form as it was and says why.
    await raw('shape').fill('{ "label": ');
    await view.getByText(/^Not JSON yet/).waitFor();
    expect(await view.getByLabel('label', { exact: true }).inputValue()).toBe('triangle');
    await raw('shape').fill(JSON.stringify({ label: 'triangle', size: 4, origin: { x: 1, y: 5 } }));
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
  });

  it('runs an untrusted tool: the output carries its badge and the envelope a script receives', async () => {
    const view = trial('shape');
    await view.getByRole('button', { name: 'Run shape' }).click();
    await result('shape').locator('.status-pill', { hasText: 'ok' }).waitFor();
    expect(await result('shape').locator('.trust-badge').textContent()).toBe('untrusted');
    expect(JSON.parse((await result('shape').locator('.tool-output > .inert-text').textContent()) ?? '')).toEqual({
      got: { label: 'triangle', size: 4, origin: { x: 1, y: 5 } },
    });
    const envelope = result('shape').locator('.trial-envelope .inert-text');
    expect(await envelope.textContent()).toContain('<untrusted_input_NONCE>');
    expect(await envelope.locator('.envelope-marker').count()).toBeGreaterThan(0);
    await studio.screenshot('tool-trial');
    await expectNoSeriousAxeViolations(studio.page, 'tool trial (dark)');
    await studio.page.getByRole('button', { name: 'Switch to light theme' }).click();
    await expectNoSeriousAxeViolations(studio.page, 'tool trial (light)');
    await studio.screenshot('tool-trial-light');
    await studio.page.getByRole('button', { name: 'Switch to dark theme' }).click();
  });

  it('refuses arguments that fail the schema: the field shows the error and nothing runs', async () => {
    await tools()
      .getByRole('button', { name: /^weather\b/ })
      .click();
    const view = trial('weather');
    await view.getByLabel('city', { exact: true }).fill('Oslo');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    await view.getByLabel('city', { exact: true }).fill('');
    // city is required: cleared, it is missing, and the core says so at /city.
    await view.getByRole('status').filter({ hasText: '1 problem' }).waitFor();
    const city = view.getByLabel('city', { exact: true });
    await expect.poll(() => city.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await city.getAttribute('aria-describedby')) ?? '';
    const problemId = describedBy.split(' ').find((id) => id.endsWith('-problems'))!;
    expect(await studio.page.locator(`[id="${problemId}"]`).textContent()).toMatch(/city/);
    const before = await runIds();
    const trialsBefore = studio.calls.filter((entry) => entry.method === 'tool:trial').length;
    await view.getByRole('button', { name: 'Run weather' }).click();
    await view
      .getByRole('alert')
      .filter({ hasText: /^Not run: 1 problem/ })
      .waitFor();
    expect(await studio.focusedElement()).toMatch(/^INPUT/);
    expect(studio.calls.filter((entry) => entry.method === 'tool:trial').length).toBe(trialsBefore);
    expect(await runIds()).toEqual(before);
    // The core refuses such a call too, whoever sends it.
    await expect(studio.service.tryTool('weather', {})).rejects.toThrow(/city/);
  });

  it('Run reuses the live check of unchanged arguments: no second args:check', async () => {
    const view = trial('weather');
    // The last test left city empty (1 problem); filling it is checked live once.
    const checksBefore = callsOf('args:check');
    await view.getByLabel('city', { exact: true }).fill('Lisbon');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    expect(callsOf('args:check')).toBe(checksBefore + 1);
    const trialsBefore = callsOf('tool:trial');
    await view.getByRole('button', { name: 'Run weather' }).click();
    await result('weather').locator('.status-pill', { hasText: 'ok' }).waitFor();
    expect(callsOf('tool:trial')).toBe(trialsBefore + 1);
    // The verdict shown was for exactly these arguments: Run asked nothing again.
    expect(callsOf('args:check')).toBe(checksBefore + 1);
  });

  it('places each problem by its pointer: a nested missing field on that field, an unknown field under the form', async () => {
    await tools()
      .getByRole('button', { name: /^shape\b/ })
      .click();
    const view = trial('shape');
    await raw('shape').fill(JSON.stringify({ label: 'dot', size: 1, origin: {}, extra: true }));
    await view.getByRole('status').filter({ hasText: '2 problems' }).waitFor();
    // origin.x is required: the core points at /origin/x, the field x, whatever its wording.
    const x = view.getByLabel('x', { exact: true });
    // The form re-renders from the raw text after the status: wait for the field's state.
    await expect.poll(() => x.getAttribute('aria-invalid')).toBe('true');
    const problemsOf = async (field: typeof x) => {
      const id = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').find((i) => i.endsWith('-problems'));
      return (await studio.page.locator(`[id="${id}"]`).textContent()) ?? '';
    };
    expect(await problemsOf(x)).toBe('missing required field "origin/x" Fix: add "x"');
    expect(await view.getByLabel('y', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    // /extra has no field in the form: it is listed under the form, not dropped.
    await view.locator('.trial-form > .trial-field-problems', { hasText: 'unknown field "extra"' }).waitFor();
    await raw('shape').fill(JSON.stringify({ label: 'dot', size: 1 }));
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    expect(await view.locator('.trial-form > .trial-field-problems').count()).toBe(0);
  });

  it('calls no model: runs with a keyless default model and with a broken models.yaml, and says so', async () => {
    // The example's default model `fast` is an openai model, and this keychain holds no key.
    expect((await studio.service.state())!.defaultModel).toBe('fast');
    const run = async (): Promise<string> => {
      const before = await runIds();
      await tools()
        .getByRole('button', { name: /^echo\b/ })
        .click();
      const view = trial('echo');
      await view.getByLabel('text', { exact: true }).fill(`no model ${before.length}`);
      await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
      await view.getByRole('button', { name: 'Run echo' }).click();
      await expect.poll(async () => (await runIds()).filter((id) => !before.includes(id)).length).toBe(1);
      const runId = (await runIds()).find((id) => !before.includes(id))!;
      await result('echo').locator('code', { hasText: runId }).waitFor();
      await result('echo').locator('.status-pill', { hasText: 'ok' }).waitFor();
      expect(await result('echo').locator('.tool-output .inert-text').first().textContent()).toBe(
        `no model ${before.length}`,
      );
      return runId;
    };
    const keyless = await run();
    // History's conversation says the trial used no model, not the workspace's default.
    await studio.page.getByRole('button', { name: /^Runs history/ }).click();
    await studio.page
      .getByRole('table', { name: 'Runs' })
      .getByRole('button', { name: `Open ${keyless}` })
      .click();
    const meta = studio.page.getByRole('log', { name: 'Conversation' }).locator('.conversation-meta').first();
    await meta.getByText('(trial of echo)').waitFor();
    expect(await meta.textContent()).toBe('Run of (trial of echo) with no model (tool trial)');
    const header = studio.page.getByRole('region', { name: 'Run panel' }).getByLabel('Run details');
    expect(await header.textContent()).not.toContain('fast');
    // A trial has no script to fork: its tool call offers no "Fork from here".
    await studio.page.getByRole('log', { name: 'Conversation' }).locator('.tool-output').first().waitFor();
    expect(await studio.page.getByRole('button', { name: /^Fork from here/ }).count()).toBe(0);

    // A models.yaml that does not parse leaves no usable model at all: a trial still runs.
    const models = path.join(root, 'models.yaml');
    const text = await readFile(models, 'utf8');
    await writeFile(models, 'fast: [provider: openai\n  model: {\n');
    await expect.poll(async () => (await studio.service.state())!.defaultModel ?? null).toBeNull();
    try {
      await run();
    } finally {
      await writeFile(models, text);
    }
    await expect.poll(async () => (await studio.service.state())!.defaultModel).toBe('fast');
  });

  it('tries an `ask` tool: the call waits for an approval card, then shows its output', async () => {
    await tools()
      .getByRole('button', { name: /^read_page\b/ })
      .click();
    const view = trial('read_page');
    await view.getByLabel('name', { exact: true }).fill('release-notes');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    await view.getByRole('button', { name: 'Run read_page' }).click();
    await result('read_page').getByText('waiting for approval').waitFor();
    // The call's approval card is right here, in the trial's result (the same card as in Approvals).
    const card = result('read_page').locator('.approval-card').filter({ hasText: 'read_page' });
    await pressWhenArmed({
      card,
      button: card.getByRole('button', { name: 'A Approve' }),
      done: result('read_page').locator('.status-pill', { hasText: 'ok' }),
    });
    expect(await result('read_page').locator('.trust-badge').textContent()).toBe('untrusted');
    expect(await result('read_page').locator('.tool-output > .inert-text').textContent()).toMatch(/\S/);
  });

  it('falls back to the raw JSON view, with a note, for a schema the form cannot lay out', async () => {
    await tools()
      .getByRole('button', { name: /^either\b/ })
      .click();
    const view = trial('either');
    expect(await view.getByRole('note').textContent()).toMatch(/\/value .*anyOf.*Edit the arguments as JSON/);
    await raw('either').fill('{ "value": true }');
    await view
      .getByRole('status')
      .filter({ hasText: /problem/ })
      .waitFor();
    await raw('either').fill('{ "value": "seven" }');
    await view.getByRole('status').filter({ hasText: 'Arguments valid' }).waitFor();
    await view.getByRole('button', { name: 'Run either' }).click();
    await result('either').locator('.status-pill', { hasText: 'ok' }).waitFor();
    expect(await result('either').locator('.tool-output > .inert-text').textContent()).toBe(
      '{"got":{"value":"seven"}}',
    );
  });

  it('MCP aliases, builtins and catalog tools are all buttons in the explorer', async () => {
    const names = await tools().locator('li.explorer-entry > button .item-label').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['echo', 'read_file', 'weather', 'read_page', 'shape', 'either']));
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
