import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator } from 'playwright';
import type { StudioHarness } from './bridge.js';
import { pressWhenArmed } from './card-press.js';

/**
 * The workspace the approval-card tests share: the example workspace plus two tools and the
 * test file's own agents (and pages). `peek_page` reads a saved page without asking (untrusted
 * output); `sink` asks, and hands its arguments, exactly as it gets them on stdin, back as its
 * output. Its schema is an open object, as many command and MCP tools have.
 *
 * ```ts
 * const cards = new ApprovalCards(studio);
 * beforeAll(() => cards.setUp({ agents: { bidi: "tools.call('sink', { file = '…' })" } }));
 * afterEach(() => cards.stopStarted());
 * ```
 */
export const PEEK_PAGE_TOOL = `
peek_page:
  description: Reads a saved web page without asking (untrusted)
  kind: command
  command: [node, tools/read-page.mjs]
  trust: untrusted
  approval: auto
  parameters:
    type: object
    properties:
      name: { type: string, pattern: '^[a-z0-9-]+$' }
    required: [name]
    additionalProperties: false
`;

const SINK_TOOL = `
sink:
  description: Hands its arguments to a local service
  kind: command
  command: [node, tools/sink.mjs]
  approval: ask
  parameters:
    type: object
`;

const SINK_SOURCE = `let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(input);
`;

/** The cards of the runs a test file starts, in a workspace set up with {@link setUp}. */
export class ApprovalCards {
  private readonly started: string[] = [];

  constructor(private readonly studio: StudioHarness) {}

  /**
   * Opens the studio on the example workspace with `peek_page`, `sink`, the given agents
   * (`agents/NAME.lua`) and pages (`pages/NAME.txt`), waits until the explorer lists them, and shows
   * the Approvals tab.
   */
  async setUp(files: {
    agents: Record<string, string>;
    pages?: Record<string, string>;
    /** Runs once the page is open, before the workspace opens (e.g. to install a fake clock). */
    beforeWorkspace?: () => Promise<void>;
  }): Promise<void> {
    const { studio } = this;
    await studio.open();
    studio.page.setDefaultTimeout(15000);
    await files.beforeWorkspace?.();
    await studio.openExampleWorkspace();
    const root = studio.service.workspaceRoot!;
    await writeFile(path.join(root, 'tools', 'sink.mjs'), SINK_SOURCE);
    for (const [name, text] of Object.entries(files.pages ?? {}))
      await writeFile(path.join(root, 'pages', `${name}.txt`), text);
    for (const [name, source] of Object.entries(files.agents))
      await writeFile(path.join(root, 'agents', `${name}.lua`), source);
    await appendFile(path.join(root, 'tools.yaml'), `${PEEK_PAGE_TOOL}${SINK_TOOL}`);
    // The workspace watcher reloads the catalog and reports the new agents.
    const names = Object.keys(files.agents);
    if (names.length > 0) await studio.agentButton(names[names.length - 1]!).waitFor();
    await studio.page
      .getByRole('region', { name: 'Tools' })
      .locator('.item-label', { hasText: /^sink$/ })
      .waitFor();
    // The new command tools make the example restricted again (its calls would be refused before
    // any card): the person trusts the workspace as it is now, as they would before such a run.
    await studio.trustWorkspace();
    await studio.showRunTab('Approvals');
  }

  /** Starts `agents/AGENT.lua`; {@link stopStarted} stops it. */
  async start(agent: string): Promise<string> {
    const { runId } = await this.studio.service.startRun({ script: `agents/${agent}.lua` });
    this.started.push(runId);
    return runId;
  }

  /** The card of run `runId`'s waiting call. */
  cardOf(runId: string): Locator {
    return this.studio.page.locator(`.approval-card[data-run-id="${runId}"]`);
  }

  /** That card, once it is armed (takes keys and clicks). */
  armed(runId: string): Locator {
    return this.cardOf(runId).and(this.studio.page.locator('[data-armed="true"]'));
  }

  /**
   * The person's press on button `name` (its whole name, e.g. `A Approve`) of run `runId`'s card:
   * once the card is armed, and again if the card moved and ignored it (card-press.ts). `done`
   * shows the press was taken (by default: the card leaves).
   */
  press(runId: string, name: string, done: Locator | 'card-gone' = 'card-gone'): Promise<void> {
    const card = this.cardOf(runId);
    return pressWhenArmed({ card, button: card.getByRole('button', { name, exact: true }), done });
  }

  /** Stops every run started since the last call, and waits until no card is left. */
  async stopStarted(): Promise<void> {
    for (const runId of this.started.splice(0)) this.studio.service.stopRun(runId);
    await this.studio.page.getByText('No call is waiting for a decision.').waitFor();
  }
}
