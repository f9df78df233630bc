import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../common/json.js';
import { ApprovalGateImpl } from '../main/core/approval/approval-gate.js';
import type { ApprovalDecision, ApprovalRequest } from '../main/core/approval/approval-types.js';
import { PolicyApprover } from '../main/core/approval/policy-approver.js';
import { createBuiltinCatalog } from '../main/core/catalog/tool-catalog.js';
import { loadWorkspace } from '../main/core/catalog/workspace.js';
import { median, type BenchRow } from './bench-kit.js';

function toolsYaml(count: number): string {
  const lines = ['# generated for the catalog benchmark'];
  for (let index = 0; index < count; index += 1) {
    const kind = index % 3;
    lines.push(`tool_${index}:`, `  description: Generated tool number ${index}`);
    if (kind === 0)
      lines.push('  kind: command', `  command: [node, tools/t${index}.mjs]`, '  env: [HOME]', '  timeoutMs: 5000');
    else if (kind === 1)
      lines.push(
        '  kind: http',
        `  url: https://api.example.com/t/${index}`,
        '  headers:',
        '    Authorization: { secret: api }',
      );
    else lines.push('  kind: builtin', '  builtin: echo', '  approval: ask');
    // Distinct schemas so the compile cache does not hide the cost.
    lines.push(
      '  parameters:',
      '    type: object',
      '    properties:',
      `      field_${index}: { type: string, maxLength: ${100 + index} }`,
      '      count: { type: integer, minimum: 0 }',
      `    required: [field_${index}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function benchCatalogLoad(): Promise<BenchRow> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-catalog-'));
  try {
    await writeFile(path.join(dir, 'tools.yaml'), toolsYaml(1000));
    await writeFile(path.join(dir, 'models.yaml'), 'fast:\n  provider: openai\n  model: gpt-4o-mini\n');
    await loadWorkspace(dir);
    const samples: number[] = [];
    for (let run = 0; run < 7; run += 1) {
      const start = performance.now();
      const workspace = await loadWorkspace(dir);
      samples.push(performance.now() - start);
      if (workspace.tools.list().length !== 1005 || workspace.problems.length > 0)
        throw new Error('benchmark catalog did not load cleanly');
    }
    return {
      name: 'catalog load, 1000 tools (tools.yaml)',
      unit: 'ms',
      median: median(samples),
      target: '< 2000 ms',
      samples: samples.length,
      how: '`loadWorkspace(dir)` on a temporary workspace holding a generated tools.yaml of 1000 tools (a third each: `command` with env and timeout, `http` with a secret header, `builtin` echo with approval `ask`; every tool with its own `parameters` schema, so the schema compile cache does not hide the cost) and a one-model models.yaml. One untimed load, then 7 timed loads (YAML parse, validation, schema compilation); each must list 1005 tools (the 1000 plus the builtins) and report no problems.',
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchGateOverhead(): Promise<BenchRow> {
  const catalog = createBuiltinCatalog();
  const gate = new ApprovalGateImpl({ approver: new PolicyApprover('deny'), catalog });
  const signal = new AbortController().signal;
  const request: ApprovalRequest = {
    runId: 'bench',
    callId: 'call-1',
    alias: 'echo',
    description: '',
    arguments: { text: 'x' },
    policy: 'auto',
    taint: [],
  };
  const bare = async (args: JsonObject): Promise<ApprovalDecision> => ({
    kind: 'approve',
    source: 'policy',
    at: String(args['text']),
  });
  const perCall = async (work: () => Promise<unknown>, calls: number): Promise<number> => {
    const start = performance.now();
    for (let index = 0; index < calls; index += 1) await work();
    return ((performance.now() - start) * 1000) / calls;
  };
  const calls = 20_000;
  await perCall(() => gate.decide(request, signal), calls);
  await perCall(() => bare(request.arguments), calls);
  const gateSamples: number[] = [];
  const bareSamples: number[] = [];
  for (let run = 0; run < 9; run += 1) {
    gateSamples.push(await perCall(() => gate.decide(request, signal), calls));
    bareSamples.push(await perCall(() => bare(request.arguments), calls));
  }
  const gateMedian = median(gateSamples);
  const bareMedian = median(bareSamples);
  return {
    name: 'approval gate per call, auto tool',
    unit: 'us',
    median: gateMedian,
    baseline: { name: 'bare async function call', median: bareMedian },
    ratio: gateMedian / bareMedian,
    target: '< 50 us per call',
    samples: gateSamples.length,
    how: '`ApprovalGateImpl.decide()` for the builtin `echo` with policy `auto` and no taint, the path every auto-approved tools.call takes: the gate approves by policy (with an ISO timestamp) without consulting its approver. Per sample: 20000 awaited calls in a loop, mean per call; 9 samples after one untimed pass. Baseline (alternating with it, same loop): a bare async function returning a decision object.',
  };
}

/** Runs the catalog benchmarks: catalog load time and approval-gate overhead. */
export default async function run(): Promise<BenchRow[]> {
  return [await benchCatalogLoad(), await benchGateOverhead()];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(
    (await run()).map((row) => ({
      ...row,
      baseline: row.baseline ? `${row.baseline.name}: ${row.baseline.median.toFixed(3)}` : '',
    })),
  );
}
