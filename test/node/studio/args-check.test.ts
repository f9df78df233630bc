import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { ARGS_CHECK_CORPUS, argsCheckToolsYaml } from '../../fixtures/args-check-corpus.js';
import { contractStudio } from './contract-studio.js';
import { trustForTests } from '../trust/trust-for-tests.js';

/** A workspace whose tools.yaml holds the corpus' tools. */
function corpusWorkspace(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-args-'));
  mkdirSync(path.join(root, 'agents'));
  writeFileSync(path.join(root, 'tools.yaml'), argsCheckToolsYaml());
  return root;
}

describe('args:check: the core validator, as the studio asks it', () => {
  it('gives every corpus label, the same verdict as the dispatcher, and a pointer and fix for each problem', async () => {
    const root = corpusWorkspace();
    const s = contractStudio();
    const state = await s.openFolder(root);
    expect(state.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    // The validators the dispatcher calls (ToolCatalog.validateArguments), loaded independently.
    const dispatcherCatalog = (await loadWorkspace(root)).tools;

    let checked = 0;
    for (const tool of ARGS_CHECK_CORPUS) {
      for (const args of tool.valid) {
        const verdict = await s.call('args:check', { alias: tool.alias, arguments: args });
        expect(verdict, `${tool.alias} ${JSON.stringify(args)}`).toEqual({ valid: true, problems: [] });
        expect(dispatcherCatalog.validateArguments(tool.alias, args)).toBeUndefined();
        checked += 1;
      }
      for (const { args, pointer } of tool.invalid) {
        const what = `${tool.alias} ${JSON.stringify(args)}`;
        const verdict = await s.call('args:check', { alias: tool.alias, arguments: args });
        expect(verdict.valid, what).toBe(false);
        expect(dispatcherCatalog.validateArguments(tool.alias, args), what).toMatch(/^invalid arguments: /);
        expect(
          verdict.problems.map((problem) => problem.pointer),
          what,
        ).toContain(pointer);
        for (const problem of verdict.problems) {
          expect(problem.message, what).not.toBe('');
          expect(problem.fix, what).not.toBe('');
        }
        checked += 1;
      }
    }
    expect(checked).toBe(ARGS_CHECK_CORPUS.reduce((n, tool) => n + tool.valid.length + tool.invalid.length, 0));
  });

  it('names the field and the fix in words a person can act on', async () => {
    const s = contractStudio();
    await s.openFolder(corpusWorkspace());
    const check = (alias: string, args: unknown) => s.call('args:check', { alias, arguments: args as never });
    expect((await check('trip', { from: 'Oslo', to: 'Rome', via: 'Bern' })).problems).toEqual([
      {
        pointer: '/via',
        message: 'unknown field "via"',
        fix: 'remove "via": the schema allows no other fields',
      },
    ]);
    expect((await check('trip', { from: 'Oslo' })).problems).toEqual([
      { pointer: '/to', message: 'missing required field "to"', fix: 'add "to"' },
    ]);
    expect((await check('remind', { when: 'tomorrow' })).problems).toEqual([
      { pointer: '/when', message: 'field "when" must match format "date-time"', fix: 'write a valid date-time' },
    ]);
    expect((await check('convert', { unit: 'K' })).problems).toEqual([
      { pointer: '/unit', message: 'field "unit" must be one of "C", "F"', fix: 'pick one of the allowed values' },
    ]);
    const oneOf = (await check('pay', { amount: 2 })).problems;
    expect(oneOf).toContainEqual(
      expect.objectContaining({
        pointer: '/amount',
        fix: 'make it match exactly one of the alternatives the schema lists',
      }),
    );
    // Not an object at all: the core's verdict, not a guess.
    expect(await check('trip', ['Oslo'])).toMatchObject({
      valid: false,
      problems: [
        { pointer: '', message: 'the arguments must be an object (a mapping)', fix: 'give an object (a mapping)' },
      ],
    });
  });

  it('refuses an unknown tool, and checks against a live run’s own catalog when given its runId', async () => {
    const root = corpusWorkspace();
    // Not about workspace trust: the corpus tools are command tools, which only a trusted workspace asks about.
    await trustForTests(root);
    const s = contractStudio();
    await s.openFolder(root);
    const unknown = await s.fail('args:check', { alias: 'nope', arguments: {} });
    expect(unknown.code).toBe('unknown-tool');

    // A run waits on the approval card for `trip`; then tools.yaml changes under it.
    const { runId } = await s.call('tool:trial', { alias: 'trip', arguments: { from: 'Oslo', to: 'Rome' } });
    await s.next('approval-pending', (pending) => pending.runId === runId);
    writeFileSync(
      path.join(root, 'tools.yaml'),
      'trip:\n  kind: command\n  command: [node, -e, "0"]\n  parameters: { type: object, properties: { from: { type: integer } } }\n',
    );
    await s.next('workspace-changed', (state) =>
      state.tools.some((tool) => tool.alias === 'trip' && JSON.stringify(tool.parameters).includes('integer')),
    );
    const edit = { from: 'Bergen', to: 'Rome' };
    // The run's dispatcher still has the schema it started with, and the card is checked against it.
    expect(await s.call('args:check', { alias: 'trip', arguments: edit, runId })).toEqual({
      valid: true,
      problems: [],
    });
    expect((await s.call('args:check', { alias: 'trip', arguments: edit })).valid).toBe(false);
    await s.call('run:stop', { runId });
    await s.ended(runId);
  });
});
