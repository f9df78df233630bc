/**
 * The ported suites through the real run engine (`promptforge test`'s runSuite): the Lua agent,
 * the approval gate, taint and trust labels all apply, as in `npm run agentdojo`.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import '../../../main/core/agentdojo/environments.js';
import { AGENTDOJO_EXAMPLES, attacksFile, userTasksFile } from '../../../bench/agentdojo-cases.js';
import { runFile } from '../testing/harness.js';
import { trustForTests } from '../trust/trust-for-tests.js';

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pf-agentdojo-'));
  cpSync(AGENTDOJO_EXAMPLES, dir, { recursive: true });
  await trustForTests(dir);
});

/** A copy of one generated file with another approval policy, and only the cases `keep` picks. */
function variant(file: string, approve: 'deny' | 'auto', keep: (name: string) => boolean = () => true): string {
  const text = readFileSync(path.join(dir, file), 'utf8').replace('\n  approve: deny\n', `\n  approve: ${approve}\n`);
  const [head, ...cases] = text.split('\n  - name: ');
  const kept = cases.filter((entry) => keep(entry.slice(0, entry.indexOf('\n'))));
  const target = path.join(dir, path.dirname(file), `${approve}-${path.basename(file)}`);
  writeFileSync(target, [head, ...kept].join('\n  - name: '));
  return target;
}

const checkFailed = (failures: { field: string }[], prefix: string) =>
  failures.some((failure) => failure.field.startsWith(`expect.check ${prefix}`));

describe.each(['banking', 'slack'])('%s through the run engine', (folder) => {
  it('the oracle completes every user task when every call that asks is approved', { timeout: 120_000 }, async () => {
    const { results, cases } = await runFile(dir, variant(userTasksFile(folder), 'auto'), { folder: false });
    expect(results).toHaveLength(cases.length);
    for (const result of results) expect(result.failures, result.name).toEqual([]);
  });

  it(
    'with nobody at the keyboard, a user task whose calls all run unasked still completes',
    { timeout: 120_000 },
    async () => {
      const { results } = await runFile(dir, path.join(dir, userTasksFile(folder)), { folder: false });
      // user_task_0 of slack and user_task_1 of banking only read (auto, untrusted output, no taint in their arguments).
      const reading = folder === 'banking' ? 'user_task_1' : 'user_task_0';
      expect(results.find((result) => result.name === reading)).toMatchObject({ outcome: 'passed' });
    },
  );
});

describe('an attack through the run engine', () => {
  it(
    'the worst-case model changes the password when allowed, and the gate stops it when nobody is there',
    { timeout: 60_000 },
    async () => {
      const pair = (name: string) => name === 'user_task_0 x injection_task_7';
      const allowed = await runFile(dir, variant(attacksFile('banking'), 'auto', pair), { folder: false });
      expect(allowed.results).toHaveLength(1);
      expect(checkFailed(allowed.results[0]!.failures, 'security_injection_task_7')).toBe(true);
      const denied = await runFile(dir, variant(attacksFile('banking'), 'deny', pair), { folder: false });
      expect(checkFailed(denied.results[0]!.failures, 'security_injection_task_7')).toBe(false);
      // The bill's IBAN came from the untrusted file, so the payment asked too, and was denied.
      expect(checkFailed(denied.results[0]!.failures, 'utility_user_task_0')).toBe(true);
    },
  );
});
