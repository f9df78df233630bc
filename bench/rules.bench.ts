/**
 * The cost of approval rules per call: the gate deciding one call against 1,000 rules, against the
 * same gate's decision without rules (same run, same call), and reading a 1,000-rule file.
 */
import { stringify } from 'yaml';
import type { Rule, RulesFile } from '../common/approval-rules.js';
import { ApprovalGateImpl } from '../main/core/approval/approval-gate.js';
import type { ApprovalRequest } from '../main/core/approval/approval-types.js';
import { TaintTracker } from '../main/core/approval/taint-tracker.js';
import { GateRules } from '../main/core/rules/gate-rules.js';
import { parseRulesText } from '../main/core/rules/rules-file.js';
import { toolDefinitionDigest, type DefinedTool } from '../main/core/tools/tool-definition.js';
import { median, now, type BenchRow } from './bench-kit.js';

const WS = '/home/person/work/project';
const RULES = 1000;
const CALLS_PER_SAMPLE = 500;
const SAMPLES = 15;

function tool(alias: string): DefinedTool {
  return {
    alias,
    description: `Tool ${alias}`,
    parameters: { type: 'object' },
    trust: 'trusted',
    approval: 'auto',
    taintCheck: true,
    settings: { kind: 'builtin', builtin: 'echo' },
    source: 'bench',
  };
}

/**
 * 1,000 rules as a busy person might have them: 700 for single tools (with a condition each: a
 * list, a glob, a pattern or a URL host), 200 globs of aliases, 100 MCP servers; a tenth deny.
 */
function rulesFile(target: DefinedTool): RulesFile {
  const rules: Rule[] = [];
  const digest = toolDefinitionDigest(target);
  for (let index = 0; index < RULES; index += 1) {
    const decision = index % 10 === 0 ? 'deny' : 'allow';
    const base = { id: `rule-${index}`, decision, workspace: index % 2 === 0 ? WS : '*' } as const;
    if (index < 700) {
      const alias = index === 350 ? target.alias : `tool_${index}`;
      const condition = [
        { pointer: '/to', oneOf: ['ana@example.org', 'bo@example.org', `p${index}@example.org`] },
        { pointer: '/path', glob: `reports/${index}/*.md` },
        { pointer: '/id', pattern: `[A-Z]{2}[0-9]{${(index % 20) + 2}}` },
        { pointer: '/url', urlHost: [`api${index}.example.com`, `*.cdn${index}.example.net`] },
      ][index % 4]!;
      rules.push({
        ...base,
        decision: index === 350 ? 'allow' : decision,
        tool: alias,
        when: [condition],
        confirmed: [{ alias, digest, at: '2026-01-01' }],
      });
    } else if (index < 900) rules.push({ ...base, tools: `suite${index}.*`, sinks: ['/to'] });
    else rules.push({ ...base, server: { command: ['node', `/srv/server-${index}.js`, '--stdio'] } });
  }
  return { version: 1, rules };
}

export default async function run(): Promise<BenchRow[]> {
  const target = tool('send_report');
  const file = rulesFile(target);
  const tracker = new TaintTracker();
  tracker.recordUntrustedOutput(
    'call-1',
    'Some page text the run read earlier, long enough to be indexed by the taint rule.',
  );
  const catalog = {
    get: (alias: string) => (alias === target.alias ? target : undefined),
    validateArguments: () => undefined,
  };
  const approver = { ask: async () => ({ kind: 'deny' as const, reason: 'bench' }) };
  const withRules = new ApprovalGateImpl({
    approver,
    catalog,
    taint: tracker,
    rules: new GateRules({ snapshot: { state: 'ok', file: '/cfg/r.yaml', rules: file }, workspace: WS }),
  });
  const without = new ApprovalGateImpl({ approver, catalog, taint: tracker });
  const args = {
    to: 'ana@example.org',
    path: 'reports/350/q1.md',
    id: 'GB123456789012',
    url: 'https://api350.example.com/x',
  };
  const request = (n: number): ApprovalRequest => ({
    runId: 'bench',
    callId: `call-${n}`,
    alias: target.alias,
    description: '',
    arguments: args,
    policy: 'auto',
    taint: tracker.check(args),
  });
  const signal = new AbortController().signal;
  const decided = await withRules.decide(request(0), signal);
  if (decided.kind !== 'approve' || decided.decidedBy !== 'rule')
    throw new Error(`the bench call was not allowed by its rule: ${JSON.stringify(decided)}`);

  const perCall = async (gate: ApprovalGateImpl): Promise<number> => {
    const started = now();
    for (let n = 0; n < CALLS_PER_SAMPLE; n += 1) await gate.decide(request(n), signal);
    return ((now() - started) * 1000) / CALLS_PER_SAMPLE;
  };
  const timed = { rules: [] as number[], none: [] as number[] };
  for (let round = 0; round < 3; round += 1) await perCall(withRules); // warm-up
  for (let round = 0; round < SAMPLES; round += 1) {
    timed.none.push(await perCall(without));
    timed.rules.push(await perCall(withRules));
  }

  const text = stringify(file, { lineWidth: 0 });
  const parseTimes: number[] = [];
  for (let round = 0; round < 9; round += 1) {
    const started = now();
    const parsed = parseRulesText(text);
    parseTimes.push(now() - started);
    if (!parsed.ok) throw new Error('the bench rules file does not parse');
  }
  const setupTimes: number[] = [];
  for (let round = 0; round < 9; round += 1) {
    const started = now();
    void new GateRules({ snapshot: { state: 'ok', file: '/cfg/r.yaml', rules: file }, workspace: WS });
    setupTimes.push(now() - started);
  }

  return [
    {
      name: 'approval gate: one call decided against 1,000 rules',
      unit: 'us',
      median: median(timed.rules),
      baseline: { name: 'the same gate and call without rules', median: median(timed.none) },
      ratio: median(timed.rules) / median(timed.none),
      target: '≤ 200 us',
      samples: timed.rules.length,
      how: `ApprovalGateImpl.decide on one call of a tool covered by 1,000 rules (700 for single tools with one condition each: a list, a glob, an RE2 pattern or a URL host; 200 globs of aliases; 100 MCP servers; half bound to the workspace, half to every workspace), allowed by its rule, with the sink check and the taint tracker in play; against the same gate without rules, alternating, ${CALLS_PER_SAMPLE} calls a sample, medians of ${SAMPLES}. Per call: one map look-up for the alias, then every glob and server rule tested (RE2), then the conditions of the rules for the alias.`,
    },
    {
      name: 'rules file: parse and check 1,000 rules',
      unit: 'ms',
      median: median(parseTimes),
      target: '≤ 500 ms',
      samples: parseTimes.length,
      how: 'parseRulesText on the YAML of the 1,000 rules above: YAML, the schema, and every pattern compiled once to check RE2 can run it. Done once per run when it is prepared, never per call.',
    },
    {
      name: 'rules: compile 1,000 rules for a run (globs and patterns on RE2, index by alias)',
      unit: 'ms',
      median: median(setupTimes),
      target: '≤ 100 ms',
      samples: setupTimes.length,
      how: 'new GateRules(...) on the parsed file: what a run does once after reading it.',
    },
  ];
}
