import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { loadTestFile, type LoadedCase, type TestProblem } from '../../../main/core/testing/load-tests.js';
import { runSuite, type SuiteResult } from '../../../main/core/testing/suite.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';
import { trustForTests } from '../trust/trust-for-tests.js';
import { afterAll } from 'vitest';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let pool: WorkerPool | undefined;
/**
 * Two Lua workers for this test file's suites, which run two cases at a time (a pool smaller than
 * the concurrency would start a fresh worker for every other case). Idle workers never keep the
 * process alive.
 */
export function suitePool(): WorkerPool {
  pool ??= new WorkerPool({ size: 2 });
  return pool;
}
// The file's workers stop with the file, not with the test process that runs the next files.
afterAll(async () => {
  await pool?.close();
  pool = undefined;
});

/** A copy of the example workspace (agents, tools, recordings), trusted, in a folder of its own. */
export async function exampleWorkspace(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-tests-'));
  cpSync(path.join(root, 'examples'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}runs`) });
  await trustForTests(dir);
  return dir;
}

/** Writes `text` as tests/NAME in `dir` and returns its path. */
export function testFile(dir: string, name: string, text: string): string {
  mkdirSync(path.join(dir, 'tests'), { recursive: true });
  const file = path.join(dir, 'tests', name);
  writeFileSync(file, text);
  return file;
}

/** Loads `file` of the workspace at `dir`: its cases and problems. */
export async function load(dir: string, file: string): Promise<{ cases: LoadedCase[]; problems: TestProblem[] }> {
  const problems: TestProblem[] = [];
  const cases = await loadTestFile(await loadWorkspace(dir), file, problems);
  return { cases, problems };
}

/** Loads and runs `file` (trusted workspace), recording under runs/tests/<name>. */
export async function runFile(
  dir: string,
  file: string,
  options: { signal?: AbortSignal; folder?: string | false; concurrency?: number; keepObserved?: boolean } = {},
): Promise<SuiteResult & { cases: LoadedCase[] }> {
  const workspace = await loadWorkspace(dir);
  const problems: TestProblem[] = [];
  const cases = await loadTestFile(workspace, file, problems);
  if (problems.length > 0) throw new Error(problems.map((problem) => `${problem.line}: ${problem.message}`).join('\n'));
  const suite = await runSuite({
    workspace,
    pool: suitePool(),
    trust: { state: 'trusted' },
    cases,
    concurrency: options.concurrency ?? 2,
    folder: options.folder ?? path.join(dir, 'runs', 'tests', 'suite'),
    signal: options.signal ?? new AbortController().signal,
    ...(options.keepObserved && { keepObserved: true }),
  });
  return { ...suite, cases };
}

/** A tool loop whose tools and prompt come from the case's input. */
export const TOOL_LOOP_AGENT = `
local input = ... or {}
local messages = { { role = 'user', content = input.prompt or 'go' } }
local result
for round = 1, input.rounds or 10 do
  result = models.chat(messages, { tools = input.tools or { 'echo' } })
  if not result.tool_calls then break end
  local answered = {}
  for i = 1, #result.tool_calls do answered[i] = { id = result.tool_calls[i].id } end
  messages[#messages + 1] = { role = 'assistant', content = result.content, tool_calls = answered }
  for i = 1, #result.tool_calls do
    local call = result.tool_calls[i]
    local ok, output = pcall(tools.call, call.name, call.arguments)
    messages[#messages + 1] = { role = 'tool', tool_call_id = call.id, content = ok and output or ('error: ' .. tostring(output)) }
  end
end
`;
