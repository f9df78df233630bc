import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

// Three calls of read_page (approval: ask in examples/tools.yaml). A denied call raises in Lua,
// so each is wrapped in pcall and the script logs what came back. Then a line of the untrusted
// page goes into echo (approval: auto): the taint check makes the studio ask anyway.
const askThree = `local pages = { 'release-notes', 'draft-notes', 'release-notes' }
local first
for i = 1, #pages do
  local ok, result = pcall(tools.call, 'read_page', { name = pages[i] })
  if ok and not first then first = result end
  log(('call %d: %s'):format(i, ok and ('read ' .. #result .. ' chars') or tostring(result)))
end
local quote = 'Quote: ' .. first:match('%- Faster[^\\n]*')
log(tools.call('echo', { text = quote }))
-- Allowed for this run above covers untainted calls only: this tainted one asks again.
local ok, again = pcall(tools.call, 'echo', { text = 'Again: ' .. quote })
log(ok and again or tostring(again))
`;

describe('studio: a run pauses on ask tools; approve, edit then approve, deny with a reason', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  let runId = '';

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(8000);
    await studio.openExampleWorkspace();
    await writeFile(path.join(studio.service.workspaceRoot!, 'agents', 'ask-three.lua'), askThree);
    // The workspace watcher reports the new agent to the explorer.
    await studio.agentButton('ask-three').waitFor();
    await studio.openAgent('ask-three');
  });
  afterAll(async () => {
    await studio.close();
  });

  it('shows the first pending call as a card, with a badge on the tab and in the title', async () => {
    await studio.page.getByRole('button', { name: '▶ Run' }).click();
    const approvalsTab = studio.page.getByRole('tab', { name: /^Approvals/ });
    await approvalsTab.getByLabel('1 pending').waitFor();
    await expect.poll(() => studio.page.title(), { timeout: 15_000 }).toBe('(1) PromptForge Studio');
    // The conversation shows the call waiting.
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    expect(
      await conversation.getByRole('article', { name: 'Tool call call-1' }).locator('.state-badge').textContent(),
    ).toBe('awaiting approval');
    expect(await studio.page.locator('.run-status .status-pill').textContent()).toBe('waiting for approval');

    await studio.showRunTab('Approvals');
    await studio.waitForApprovalCards(1);
    const card = studio.page.locator('.approval-card').first();
    expect(await card.getByRole('heading').textContent()).toBe('read_page call-1');
    expect(await card.locator('.approval-description').textContent()).toBe(
      'Reads a saved web page from pages/ (content written by strangers, so untrusted)',
    );
    expect(await card.locator('pre').textContent()).toBe('{\n  "name": "release-notes"\n}');
    expect(await card.locator('.reason-badge').textContent()).toBe('policy: ask');
    runId = (await studio.service.listApprovals())[0]!.runId;
  });

  it('ignores keys on a card the person did not move to, then approves with A after an arrow key', async () => {
    const card = studio.page.locator('.approval-card[data-call-id="call-1"]');
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    const decideCalls = () => studio.calls.filter((entry) => entry.method === 'approval:decide').length;
    // Focus put there by a program (as a focus-stealing card list would) is not the person's act.
    await card.focus();
    for (const key of ['a', 'l', 'Shift+L', 'd', 'e']) await studio.page.keyboard.press(key);
    expect(await studio.page.locator('.approval-card form, .approval-card .edit-arguments').count()).toBe(0);
    // Tab-free keyboard path: focus the panel, an arrow moves into the first card.
    await studio.page.getByRole('region', { name: 'Pending approvals' }).focus();
    await studio.page.keyboard.press('ArrowDown');
    expect(await studio.focusedElement()).toBe('ARTICLE.approval-card');
    // The next call arrives as a new card once the first one ran.
    await pressWhenArmed({
      card,
      button: card,
      key: 'a',
      done: studio.page.locator('.approval-card[data-call-id="call-2"]'),
    });
    expect(decideCalls()).toBe(1);
    expect(await studio.page.locator('.last-decision').textContent()).toBe(
      'Last decision: Approved by you: read_page call-1.',
    );
    // The decided card took focus with it: focus is back on the panel, not on the new card.
    expect(await studio.focusedElement()).toBe('DIV.approvals-panel[Pending approvals]');
  });

  it('edits the second call: live schema errors, then approves the changed argument', async () => {
    const card = studio.page.locator('.approval-card[data-call-id="call-2"]');
    expect(await card.locator('pre').textContent()).toBe('{\n  "name": "draft-notes"\n}');
    const editor = '.approval-card[data-call-id="call-2"] .cm-content';
    await pressWhenArmed({
      card,
      button: card.getByRole('button', { name: 'E Edit then approve' }),
      done: studio.page.locator(editor),
    });
    await studio.replaceEditorText(editor, '{ "name": "Release Notes" }');
    await card.getByRole('list', { name: 'Argument problems' }).waitFor();
    // The core's own verdict (args:check), naming the field and the fix.
    expect(await card.getByRole('list', { name: 'Argument problems' }).textContent()).toBe(
      'field "name" must match pattern "^[a-z0-9-]+$" — change the text so that the pattern matches it',
    );
    expect(await card.getByRole('button', { name: 'Approve edited' }).isDisabled()).toBe(true);
    await studio.replaceEditorText(editor, '{ "name": "release-notes" }');
    await card.getByText("The arguments fit the tool's parameters.").waitFor();
    await pressWhenArmed({
      card,
      button: card.getByRole('button', { name: 'Approve edited' }),
      done: studio.page.locator('.approval-card[data-call-id="call-3"]'),
    });
  });

  it('denies the third call with a required reason', async () => {
    const card = studio.page.locator('.approval-card[data-call-id="call-3"]');
    const reason = card.getByLabel('Reason for denying');
    await pressWhenArmed({ card, button: card.getByRole('button', { name: 'D Deny…' }), done: reason });
    const deny = card.getByRole('button', { name: 'Deny', exact: true });
    expect(await deny.isDisabled()).toBe(true);
    await reason.fill('no third read, please');
    await pressWhenArmed({
      card,
      button: deny,
      done: studio.page.locator('.approval-card[data-call-id="call-4"]'),
    });
  });

  it('asks for a call of an auto tool whose arguments quote untrusted output, with the tainted span marked', async () => {
    const card = studio.page.locator('.approval-card[data-call-id="call-4"]');
    expect(await card.getByRole('heading').textContent()).toBe('echo call-4');
    expect(await card.locator('.reason-badge').textContent()).toBe('tainted arguments');
    expect(await card.locator('.taint-note').textContent()).toBe('tainted by output call-1');
    // Where exactly the span starts and ends is the taint tracker's business (test/node/approval).
    expect(await card.locator('mark.taint-span').textContent()).toContain(
      'Faster start-up: the index loads lazily, cutting cold starts by 40',
    );
    expect(await card.locator('pre').textContent()).toBe(
      '{\n  "text": "Quote: - Faster start-up: the index loads lazily, cutting cold starts by 40%."\n}',
    );
    // The card says what "allow for this run" will cover before the person picks it.
    expect(await card.locator('.allow-scope').textContent()).toBe(
      'Allow for this run covers: untainted calls of echo, as long as the tool stays as it is now. Tainted calls will still ask.',
    );
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    await studio.screenshot('approvals');
    await card.locator('h3').click();
    // The picture may have brought the window to the front, which arms the card again: armed
    // first, so that what the plain L does not do is not the arming's doing.
    await card.and(studio.page.locator('[data-armed="true"]')).waitFor();
    // Plain L does nothing: allowing more than one call takes Shift.
    await studio.page.keyboard.press('l');
    expect(await card.isVisible()).toBe(true);
    // The next tainted call of echo asks again, and the panel says what was allowed, by whom.
    const again = studio.page.locator('.approval-card[data-call-id="call-5"]');
    await pressWhenArmed({ card, button: card.locator('h3'), key: 'Shift+L', done: again });
    expect(await studio.page.locator('.last-decision').textContent()).toBe(
      'Last decision: Allowed for this run by you: untainted calls of echo, as long as the tool stays as it is now. Tainted calls will still ask.',
    );
    expect(await again.locator('.reason-badge').textContent()).toBe('tainted arguments');
    await pressWhenArmed({ card: again, button: again.getByRole('button', { name: 'A Approve' }), done: 'card-gone' });
    expect(await studio.waitForRunEnd()).toBe('ok');
    expect(await studio.page.getByText('No call is waiting for a decision.').isVisible()).toBe(true);
    expect(await studio.page.title()).toBe('PromptForge Studio');
  });

  it('shows each outcome in the conversation', async () => {
    await studio.showRunTab('Conversation');
    const conversation = studio.page.getByRole('log', { name: 'Conversation' });
    const call = (id: string) => conversation.getByRole('article', { name: `Tool call ${id}` });
    await call('call-3').waitFor();
    expect(await call('call-1').locator('.state-badge').textContent()).toBe('done');
    expect(await call('call-1').locator('.decision-note').textContent()).toBe('Approved by you');
    expect(await call('call-2').locator('.state-badge').textContent()).toBe('done');
    expect(await call('call-2').locator('.decision-note').textContent()).toBe('Approved with edited arguments by you');
    expect(await call('call-2').locator('pre').nth(1).textContent()).toBe('{\n  "name": "release-notes"\n}');
    expect(await call('call-2').locator('.trust-badge').textContent()).toBe('untrusted');
    expect(await call('call-3').locator('.state-badge').textContent()).toBe('denied');
    expect(await call('call-3').locator('.deny-reason').textContent()).toBe('Denied by you: no third read, please');
    await call('call-5').waitFor();
    expect(await call('call-4').locator('.decision-note').textContent()).toBe(
      'Allowed for this run by you: untainted calls of echo, as long as the tool stays as it is now. Tainted calls will still ask.',
    );
    expect(await call('call-5').locator('.decision-note').textContent()).toBe('Approved by you');
  });

  it('wrote the three decisions into the transcript', async () => {
    const events = await studio.waitForTranscriptEvent(runId, 'run-end');
    const decisions = events
      .filter((event) => event['type'] === 'approval-decision')
      .map((event) => {
        const decision = event['decision'] as Record<string, unknown>;
        return {
          callId: event['callId'],
          kind: decision['kind'],
          source: decision['source'],
          reason: decision['reason'],
          arguments: decision['arguments'],
        };
      });
    expect(decisions).toEqual([
      { callId: 'call-1', kind: 'approve', source: 'studio', reason: undefined, arguments: undefined },
      {
        callId: 'call-2',
        kind: 'approve-edited',
        source: 'studio',
        reason: undefined,
        arguments: { name: 'release-notes' },
      },
      { callId: 'call-3', kind: 'deny', source: 'studio', reason: 'no third read, please', arguments: undefined },
      { callId: 'call-4', kind: 'allow-for-run', source: 'studio', reason: undefined, arguments: undefined },
      { callId: 'call-5', kind: 'approve', source: 'studio', reason: undefined, arguments: undefined },
    ]);
    const logs = events.filter((event) => event['type'] === 'log').map((event) => event['text']);
    expect(logs[0]).toMatch(/^call 1: read \d+ chars$/);
    expect(logs[1]).toMatch(/^call 2: read \d+ chars$/);
    expect(logs[2]).toContain('no third read, please');
    // (A call whose arguments carried untrusted text may hand its output back inside the envelope.)
    expect(logs[3]).toContain('Quote: - Faster start-up: the index loads lazily, cutting cold starts by 40%.');
    expect(logs[4]).toContain('Again: Quote: - Faster start-up: the index loads lazily, cutting cold starts by 40%.');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
