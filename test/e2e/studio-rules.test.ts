import { existsSync, realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleStore } from '../../main/core/rules/rule-store.js';
import { expectNoSeriousAxeViolations } from './axe.js';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// Two calls of read_page (approval: ask). After "Always allow…" saves a rule, the second call of
// the same run is allowed by it, nobody asked.
const readTwice = `for i = 1, 2 do
  local ok, page = pcall(tools.call, 'read_page', { name = 'release-notes' })
  log(('call %d: %s'):format(i, ok and ('read ' .. #page .. ' chars') or tostring(page)))
end
`;

describe('studio: Always allow… proposes the narrowest rule, saved only through main’s dialog; the Rules view', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  const store = () => new RuleStore(studio.configDirectory);
  const conversation = () => studio.page.getByRole('log', { name: 'Conversation' });
  const cardIn = (callId: string) =>
    conversation()
      .getByRole('article', { name: `Tool call ${callId}` })
      .locator('.approval-card');
  const form = () => cardIn('call-1').getByRole('form', { name: 'Always allow…' });
  const words = () => form().locator('.rule-words');
  let root = '';
  let runId = '';

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.openExampleWorkspace();
    root = realpathSync(studio.service.workspaceRoot!);
    await writeFile(path.join(root, 'agents', 'read-twice.lua'), readTwice);
    await studio.agentButton('read-twice').waitFor();
    await studio.openAgent('read-twice');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('proposes the narrowest rule for the call, in words, with what still asks', async () => {
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    await cardIn('call-1').waitFor();
    runId = (await studio.service.listApprovals())[0]!.runId;
    await pressWhenArmed({
      card: cardIn('call-1'),
      button: cardIn('call-1').getByRole('button', { name: 'Always allow…' }),
      done: words().getByText('Allows calls of tool'),
    });
    expect(await words().locator('p').allTextContents()).toEqual([
      `Allows calls of tool "read_page" in the workspace ${root} when /name is "release-notes". It covers only the tool definition you confirmed (1); a new or changed tool asks once first. Calls whose arguments carry untrusted text still ask.`,
      'The rule covers this call: saving it runs the call now.',
    ]);
    // The narrowest choices are the ones picked.
    expect(
      await form()
        .getByRole('radio', { name: /^this tool: read_page$/ })
        .isChecked(),
    ).toBe(true);
    expect(
      await form()
        .getByRole('radio', { name: /^this workspace/ })
        .isChecked(),
    ).toBe(true);
    expect(await form().getByRole('combobox', { name: '/name' }).inputValue()).toBe('equals');
    await studio.screenshot('always-allow');
    await expectNoSeriousAxeViolations(studio.page, 'the Always allow… form (dark)');
    await studio.useTheme('light');
    await expectNoSeriousAxeViolations(studio.page, 'the Always allow… form (light)');
    await studio.useTheme('dark');
  });

  it('says what a widened rule lets through, as the person widens it', async () => {
    await form().getByRole('combobox', { name: '/name' }).selectOption('glob');
    await form()
      .getByRole('textbox', { name: /\/name: matches a glob/ })
      .fill('release-*');
    await words().getByText('/name matches the glob "release-*"').waitFor();
    await form().getByRole('radio', { name: 'every workspace' }).check();
    await words().getByText('Allows calls of tool "read_page" in every workspace when').waitFor();
    // A glob of aliases: the rule says it covers only the definition confirmed, so a new tool asks once.
    await form().getByRole('radio', { name: 'tools whose alias matches a glob' }).check();
    await form().getByRole('textbox', { name: 'Glob of tool aliases (* and ?)' }).fill('read_*');
    await words().getByText('calls of every tool whose alias matches "read_*"').waitFor();
    // Back to this tool, any page name.
    await form()
      .getByRole('radio', { name: /^this tool: read_page$/ })
      .check();
    await form().getByRole('combobox', { name: '/name' }).selectOption('any');
    await words().getByText('Allows calls of tool "read_page" in every workspace, whatever the arguments.').waitFor();
  });

  it('a page script cannot save a rule: without a press main refuses, and no dialog shows', async () => {
    const asked = studio.person.asked.length;
    studio.person.input = 'none';
    try {
      const result = (await studio.page.evaluate(async () => {
        const api = (globalThis as unknown as { promptforge: Record<string, (r: unknown) => Promise<unknown>> })
          .promptforge;
        return api['rules:save']!({
          rule: { id: 'planted', decision: 'allow', workspace: '*', tools: '*' },
        });
      })) as { ok: boolean; error?: { code: string } };
      expect(result).toMatchObject({ ok: false, error: { code: 'no-person-input' } });
    } finally {
      studio.person.input = 'real';
    }
    expect(studio.person.asked.length).toBe(asked);
    expect(existsSync(store().file)).toBe(false);
  });

  it('a no in main’s dialog writes nothing, and the form says so', async () => {
    studio.person.answers.push(false);
    await form().getByRole('button', { name: 'Save the rule…' }).click();
    await form().getByText('Nothing was saved: you said no in the confirmation dialog.').waitFor();
    const question = studio.person.asked.at(-1)!;
    expect(question.title).toMatch(/^Save the approval rule "allow-read_page-\d{8}t\d{4}"\?$/);
    expect(question.message).toBe(
      'Allows calls of tool "read_page" in every workspace, whatever the arguments. It covers only the tool definition you confirmed (1); a new or changed tool asks once first. Calls whose arguments carry untrusted text still ask.',
    );
    expect(question.detail).toContain(`It is written to ${store().file}`);
    expect(question.confirm).toBe('Save the rule and run the call');
    expect(existsSync(store().file)).toBe(false);
    expect(await studio.focusedElement()).toBe('BUTTON.button.button-primary');
  });

  it('a yes saves the rule to the config folder and runs the call; the run’s next call is allowed by it', async () => {
    await form().getByRole('button', { name: 'Save the rule…' }).click();
    expect(await studio.waitForRunEnd()).toBe('ok');
    const saved = (await store().load()).rules.rules ?? [];
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ decision: 'allow', workspace: '*', tool: 'read_page' });
    expect(saved[0]?.when).toBeUndefined();
    const events = await studio.waitForTranscriptEvent(runId, 'run-end');
    const decisions = events
      .filter((event) => event['type'] === 'approval-decision')
      .map((event) => (event['decision'] as { decidedBy?: string }).decidedBy);
    expect(decisions).toEqual(['approver', 'rule']);
    await conversation().getByRole('article', { name: 'Tool call call-2' }).locator('.decision-rule').waitFor();
    expect(
      await conversation().getByRole('article', { name: 'Tool call call-2' }).locator('.decision-rule').textContent(),
    ).toMatch(/^Rule: rule "allow-read_page-\d{8}t\d{4}" \(allow\) matched$/);
  });

  it('lists the rule in the Rules view, turns it off without a dialog, and deletes it only with a yes', async () => {
    await studio.page.getByRole('button', { name: 'Rules', exact: true }).click();
    const view = studio.page.getByRole('region', { name: 'Approval rules' });
    const rule = view.getByRole('listitem').first();
    await rule.getByText('It last decided a call of read_page').waitFor();
    expect(await rule.locator('.decision-badge').textContent()).toBe('allow');
    expect(await rule.locator('.rule-details').textContent()).toContain('Whereevery workspace');
    await studio.screenshot('rules-view');
    await expectNoSeriousAxeViolations(studio.page, 'the Rules view (dark)');
    await studio.useTheme('light');
    await expectNoSeriousAxeViolations(studio.page, 'the Rules view (light)');
    await studio.useTheme('dark');

    const asked = studio.person.asked.length;
    await rule.getByRole('button', { name: 'Turn off' }).click();
    await rule.getByText('Turned off: it decides nothing until you turn it on again.').waitFor();
    expect(await rule.locator('.tag').first().textContent()).toBe('off');
    expect(studio.person.asked.length).toBe(asked);
    expect((await store().load()).rules.rules?.[0]?.enabled).toBe(false);
    expect(await studio.focusedElement()).toBe('BUTTON.button');

    studio.person.answers.push(false);
    await rule.getByRole('button', { name: 'Delete…' }).click();
    await rule.getByText('Nothing was deleted: you said no in the confirmation dialog.').waitFor();
    expect(studio.person.asked.at(-1)?.title).toMatch(/^Delete the approval rule "allow-read_page-/);
    await rule.getByRole('button', { name: 'Delete…' }).click();
    await view.getByRole('heading', { name: 'No rules yet' }).waitFor();
    expect((await store().load()).rules.rules).toEqual([]);
    // The row went away: focus is on the view's heading (which announces the deletion), not the page.
    await expect.poll(() => studio.focusedElement()).toBe('H2');
  });

  it('follows the file: a rule the CLI adds shows at once, with its conflicts and a tool that is gone', async () => {
    const view = studio.page.getByRole('region', { name: 'Approval rules' });
    await store().add({ id: 'never-read', decision: 'deny', workspace: '*', tool: 'read_page' });
    await store().add({ id: 'reads', decision: 'allow', workspace: root, tools: 'read_*' });
    await store().add({ id: 'old', decision: 'allow', workspace: '*', tool: 'fetch_url' });
    await view.getByRole('heading', { name: 'old' }).waitFor();
    expect(await view.getByRole('list', { name: 'Conflicts of rule reads' }).textContent()).toBe(
      'Rule "never-read" (deny) outranks it for read_page when both match (deny > ask > allow)',
    );
    expect(
      await view.getByRole('listitem').filter({ hasText: 'fetch_url' }).locator('.rule-missing').textContent(),
    ).toMatch(/No tool fetch_url in this workspace any more/);
  });

  it('shows a broken rules file with its problems, says no rule applies, and the approvals say so too', async () => {
    const view = studio.page.getByRole('region', { name: 'Approval rules' });
    const text = await readFile(store().file, 'utf8');
    await writeFile(store().file, text.replace('decision: deny', 'decision: never'), { mode: 0o600 });
    const alert = view.getByRole('alert').filter({ hasText: 'The rules file cannot be read' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('No rule applies, and every call asks, until it is fixed.');
    expect(await alert.locator('li').first().textContent()).toMatch(
      new RegExp(`^${store().file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: rules\\[0\\]\\.decision: `),
    );
    // The header's Rules button says it needs attention, from every view.
    await studio.page.getByRole('button', { name: 'Rules (needs attention)' }).waitFor();
    await studio.screenshot('rules-view-broken');
    await expectNoSeriousAxeViolations(studio.page, 'the Rules view with a broken file');
    // Where calls wait, too.
    await studio.openAgent('read-twice');
    await studio.showRunTab('Approvals');
    const notice = studio.page.getByRole('note').filter({ hasText: 'Your approval rules file cannot be read' });
    await notice.waitFor();
    await notice.getByRole('button', { name: 'Open Rules' }).click();
    await view.waitFor();
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
