import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../common/run-events.js';
import { PolicyApprover } from '../../../main/core/approval/policy-approver.js';
import type { ModelCatalog } from '../../../main/core/catalog/model-catalog.js';
import { loadWorkspace, type Workspace } from '../../../main/core/catalog/workspace.js';
import { prepareRun, RunSetupError } from '../../../main/core/run/prepare-run.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';
import { TOOL_TRIAL_SCRIPT, trialScriptName } from '../../../main/core/studio/tool-trial.js';

let pool: WorkerPool;
let root: string;
beforeAll(() => {
  pool = new WorkerPool({ size: 1 });
  root = mkdtempSync(path.join(tmpdir(), 'pf-trial-run-'));
  mkdirSync(path.join(root, 'agents'));
});
afterAll(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

/** A model catalog that fails every question: a trial that asks it anything fails. */
const unusableModels: ModelCatalog = new Proxy({} as ModelCatalog, {
  get: (_target, name) => () => {
    throw new Error(`a tool trial asked the model catalog (${String(name)})`);
  },
});

/** A model catalog whose default names a model it does not define (what a broken models.yaml leaves). */
const danglingDefault: ModelCatalog = {
  get: () => undefined,
  list: () => [],
  defaultFor: () => 'ghost',
};

async function trial(workspace: Workspace, script = TOOL_TRIAL_SCRIPT) {
  const events: RunEvent[] = [];
  const run = await prepareRun({
    scriptFile: path.join(root, trialScriptName('echo')),
    scriptText: script,
    input: { alias: 'echo', arguments: { text: 'no model needed' } },
    toolTrial: { alias: 'echo' },
    workspace,
    pool,
    approver: new PolicyApprover('deny'),
    transcriptPath: false,
    // Not about workspace trust: a restricted run would ask even for the builtin echo.
    trust: { state: 'trusted' },
    onEvent: (event) => events.push(event),
  });
  await run.start();
  return { result: await run.done, events };
}

describe('a tool trial resolves no model', () => {
  it.each([
    ['fails every question', unusableModels],
    ['has a default that names no model it defines', danglingDefault],
  ])('runs the tool when the model catalog %s; run-start names no model', async (_case, models) => {
    const workspace = { ...(await loadWorkspace(root)), models };
    const { result, events } = await trial(workspace);
    expect(result.status, JSON.stringify(result.error)).toBe('ok');
    const start = events.find((event) => event.type === 'run-start');
    expect(start).not.toHaveProperty('model');
    expect(start).toMatchObject({ toolTrial: { alias: 'echo' }, script: { path: '(trial of echo)' } });
    expect(events.filter((event) => event.type === 'tool-output')).toMatchObject([
      { alias: 'echo', output: 'no model needed' },
    ]);
  });

  it('fails a models.chat in a trial run instead of resolving the default model', async () => {
    const workspace = { ...(await loadWorkspace(root)), models: unusableModels };
    const { result } = await trial(workspace, `models.chat({ { role = 'user', content = 'hi' } })`);
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/models\.chat: a tool trial calls no model/);
  });

  it('refuses a trial that is also given a model', async () => {
    const workspace = await loadWorkspace(root);
    await expect(
      prepareRun({
        scriptFile: path.join(root, trialScriptName('echo')),
        scriptText: TOOL_TRIAL_SCRIPT,
        toolTrial: { alias: 'echo' },
        model: 'fast',
        workspace,
        pool,
        approver: new PolicyApprover('deny'),
        transcriptPath: false,
      }),
    ).rejects.toThrow(
      new RunSetupError('a tool trial calls no model and replays nothing: it takes no model, endpoint or replay'),
    );
  });
});
