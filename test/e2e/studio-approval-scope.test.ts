import { readFile, writeFile, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// sink asks for every call and has its taint check off: "allow for this run" then covers every
// later call of it in the run, tainted or not.
const sinkEntry = `
sink:
  description: Hands its arguments to a local service
  kind: command
  command: [node, tools/sink.mjs]
  approval: ask
  taintCheck: false
  parameters:
    type: object
`;
// A tool added later only to see that the studio has read the changed tools.yaml.
const markerEntry = `
marker:
  description: Marks that the studio read this version of tools.yaml
  kind: command
  command: [node, tools/sink.mjs]
  approval: ask
  parameters:
    type: object
`;
const sinkTool = `let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(input);
`;
const callSink = `local ok, out = pcall(tools.call, 'sink', { note = 'hello' })
log(ok and out or tostring(out))
`;

describe('studio: what "allow for this run" promises on a card comes from the run, not from tools.yaml now', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const toolLabel = (alias: string) =>
    studio.page.getByRole('region', { name: 'Tools' }).locator('.item-label', { hasText: new RegExp(`^${alias}$`) });

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15000);
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    await writeFile(path.join(root, 'tools', 'sink.mjs'), sinkTool);
    await writeFile(path.join(root, 'agents', 'call-sink.lua'), callSink);
    await appendFile(path.join(root, 'tools.yaml'), sinkEntry);
    await studio.agentButton('call-sink').waitFor();
    await toolLabel('sink').waitFor();
    // The new command tool makes the example restricted, where its calls would be refused before a
    // card (and its taintCheck: false ignored): the person trusts the workspace as it is now.
    await studio.trustWorkspace();
    await studio.showRunTab('Approvals');
  });
  afterAll(async () => {
    await studio.close();
  });

  it("keeps the run's taint-check setting on the card after tools.yaml turns the check on mid-run", async () => {
    const { runId } = await studio.service.startRun({ script: 'agents/call-sink.lua' });
    const card = studio.page.locator(`.approval-card[data-run-id="${runId}"]`);
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    const promise =
      'Allow for this run covers: every call of sink, as long as the tool stays as it is now (its taint check is off).';
    expect(await card.locator('.allow-scope').textContent()).toBe(promise);

    // The workspace's tools.yaml now has the check on; this run still runs with it off.
    const file = path.join(studio.service.workspaceRoot!, 'tools.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('  taintCheck: false\n', '') + markerEntry);
    await toolLabel('marker').waitFor();
    // The card still says what allowing does in this run: tainted calls of sink will not ask.
    expect(await card.locator('.allow-scope').textContent()).toBe(promise);

    await pressWhenArmed({
      card,
      button: card.getByRole('button', { name: 'Shift+L Allow for this run' }),
      done: 'card-gone',
    });
    const events = await studio.waitForTranscriptEvent(runId, 'run-end');
    const decision = events.find((event) => event['type'] === 'approval-decision')?.['decision'] as
      Record<string, unknown> | undefined;
    // The core's own words for the decision agree with the card.
    expect(decision?.['kind']).toBe('allow-for-run');
    expect(String(decision?.['scope'])).toContain('taintCheck off');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
