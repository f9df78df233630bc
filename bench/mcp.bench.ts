import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ApprovalGateImpl } from '../main/core/approval/approval-gate.js';
import { PolicyApprover } from '../main/core/approval/policy-approver.js';
import { buildWorkspace } from '../main/core/catalog/workspace.js';
import { McpAwareCatalog } from '../main/core/mcp/mcp-catalog.js';
import { McpServerManager } from '../main/core/mcp/mcp-manager.js';
import type { McpServerSpec } from '../main/core/catalog/mcp-spec.js';
import { ToolDispatcher } from '../main/core/run/tool-dispatcher.js';
import { McpPersonSession } from '../main/core/mcp/mcp-person-session.js';
import { createProvider } from '../main/core/providers/create-provider.js';
import { ModelDriver, type ResolvedModel } from '../main/core/run/model-driver.js';
import { startScriptedServer } from '../test/fixtures/scripted-openai-server.js';
import { createToolRunner } from '../main/core/tools/tool-runner.js';
import { type BenchRow, median, now } from './bench-kit.js';
import { noSecrets } from '../test/fixtures/stubs.js';

/**
 * MCP benchmarks against the real `@modelcontextprotocol/server-everything` over stdio:
 * the host's tools.call path to its echo tool, and server start until tools are listed, each
 * against the SDK client alone in the same run.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = 300;
const STARTS = 7;
const SAMPLING_ROUNDS = 120;

function spec(): McpServerSpec {
  const yaml = `everything:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(server)}, stdio]\n  tools:\n    echo: { approval: auto, trust: trusted }\n    trigger-sampling-request: { approval: auto, trust: trusted }\n`;
  const found = buildWorkspace(root, { 'tools.yaml': yaml }).mcpServers?.[0];
  if (!found) throw new Error('benchmark server entry did not load');
  return found;
}

async function sdkClient(): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], stderr: 'pipe' }),
  );
  return client;
}

async function roundTrip(): Promise<BenchRow> {
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers: [spec()],
    secrets: noSecrets,
  });
  const client = await sdkClient();
  try {
    await manager.listTools();
    const catalog = new McpAwareCatalog([], manager);
    const dispatcher = new ToolDispatcher({
      runId: 'bench',
      nonce: 'benchnonce',
      catalog,
      runner: createToolRunner({ workspaceRoot: root, secrets: noSecrets, mcp: manager }),
      gate: new ApprovalGateImpl({ approver: new PolicyApprover('deny'), catalog }),
      emit: () => undefined,
    });
    const signal = new AbortController().signal;
    const ours: number[] = [];
    const sdk: number[] = [];
    for (let i = 0; i < CALLS; i += 1) {
      // Alternate, so both see the same machine load.
      let start = now();
      const value = await dispatcher.call({ alias: 'everything.echo', args: { message: `m${i}` } }, signal);
      ours.push(now() - start);
      if (typeof value !== 'string' || !value.includes(`m${i}`)) throw new Error('unexpected echo output');
      start = now();
      await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      sdk.push(now() - start);
    }
    catalog.dispose();
    const ourMedian = median(ours.slice(20));
    const sdkMedian = median(sdk.slice(20));
    return {
      name: 'tools.call round trip, stdio MCP echo (host path)',
      unit: 'ms',
      median: ourMedian,
      baseline: { name: 'SDK client.callTool, same server', median: sdkMedian },
      ratio: ourMedian / sdkMedian,
      target: '≤ 1.3×',
      samples: CALLS - 20,
      how: `server-everything over stdio. Ours: ToolDispatcher.call (argument validation, the approval gate with the tool at approval auto, the ToolRunner, McpServerManager, the SDK client, result conversion) to its echo tool; baseline: a separate SDK Client calling the same tool on its own server process. ${CALLS} alternating pairs, the first 20 dropped as warm-up. The Lua worker's own tools.call hop is measured in run-tools-call.bench.ts and is not part of either side.`,
    };
  } finally {
    await client.close();
    await manager.close();
  }
}

async function startToListed(): Promise<BenchRow> {
  const ours: number[] = [];
  const sdk: number[] = [];
  const serverSpec = spec();
  for (let i = 0; i < STARTS; i += 1) {
    let start = now();
    const manager = new McpServerManager({
      workspaceRoot: root,
      servers: [serverSpec],
      secrets: noSecrets,
    });
    const listed = await manager.listTools();
    ours.push(now() - start);
    await manager.close();
    if (listed.tools.length === 0) throw new Error('no tools listed');
    start = now();
    const client = await sdkClient();
    await client.listTools();
    sdk.push(now() - start);
    await client.close();
  }
  const ourMedian = median(ours);
  const sdkMedian = median(sdk);
  return {
    name: 'MCP server start, initialize until tools are listed',
    unit: 'ms',
    median: ourMedian,
    baseline: { name: 'SDK Client.connect + listTools', median: sdkMedian },
    ratio: ourMedian / sdkMedian,
    target: '≤ 1.2×',
    samples: STARTS,
    how: `server-everything over stdio, spawned fresh each time. Ours: a new McpServerManager's listTools() (spawn with the process-tree marker, initialize, every tools/list page checked tool by tool, catalog entries built with compiled schemas); baseline: the SDK Client alone (connect, listTools). ${STARTS} alternating pairs.`,
  };
}

/**
 * A sampling round (the server asks, the person approves at once, the run's model answers)
 * against what a script pays for the same model round itself plus one tool call.
 */
async function samplingRound(): Promise<BenchRow> {
  const modelServer = await startScriptedServer(() => ({ content: 'The sky is blue.' }));
  const model: ResolvedModel = {
    alias: 'm',
    providerId: 'openai-compatible',
    modelId: 'scripted',
    provider: createProvider({ providerId: 'openai-compatible', baseUrl: modelServer.url }),
  };
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers: [spec()],
    secrets: noSecrets,
  });
  try {
    await manager.listTools();
    // server-everything registers its sampling tool once it has seen the client's capabilities.
    const listed = () => manager.currentTools().some((tool) => tool.alias === 'everything.trigger-sampling-request');
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!listed()) return;
        off();
        resolve();
      };
      const off = manager.onChange(check);
      check();
    });
    const catalog = new McpAwareCatalog([], manager);
    const session = new McpPersonSession({
      runId: 'bench',
      nonce: '0'.repeat(32),
      emit: () => undefined,
      currentCall: () => ({ callId: 'call-1', alias: 'everything.trigger-sampling-request' }),
      sampler: { ask: async () => ({ kind: 'approve' }) },
      model: async () => model,
    });
    const driver = new ModelDriver({ resolve: async () => model }, catalog, () => undefined);
    const signal = new AbortController().signal;
    const ours: number[] = [];
    const own: number[] = [];
    for (let i = 0; i < SAMPLING_ROUNDS; i += 1) {
      let start = now();
      const answer = await manager.callTool(
        'everything',
        'trigger-sampling-request',
        { prompt: `p${i}`, maxTokens: 100 },
        signal,
        30_000,
        session,
      );
      ours.push(now() - start);
      if (!answer.includes('The sky is blue.')) throw new Error(`unexpected sampling answer: ${answer.slice(0, 200)}`);
      start = now();
      await driver.chat(
        {
          messages: [{ role: 'user', content: `Resource trigger-sampling-request context: p${i}` }],
          opts: { max_tokens: 100 },
        },
        signal,
      );
      await manager.callTool('everything', 'echo', { message: `p${i}` }, signal, 30_000);
      own.push(now() - start);
    }
    catalog.dispose();
    const ourMedian = median(ours.slice(20));
    const ownMedian = median(own.slice(20));
    return {
      name: "sampling round: a server's request, approved, answered by the run's model",
      unit: 'ms',
      median: ourMedian,
      baseline: { name: "the script's own models.chat round to the same model + one tools.call", median: ownMedian },
      ratio: ourMedian / ownMedian,
      target: '≤ 1.5×',
      samples: SAMPLING_ROUNDS - 20,
      how: `server-everything over stdio, a scripted OpenAI-compatible model on loopback (streamed, one short reply). Ours: McpServerManager.callTool of its trigger-sampling-request tool with a run session (McpPersonSession): the server's sampling/createMessage is routed to the run, checked, approved at once by a stand-in person, answered by the model with the server's words inside the envelope, and the answer returned to the server, which then answers the call. Baseline: what the same model round costs a script itself (ModelDriver.chat) plus one tools.call (the echo tool) on the same server. ${SAMPLING_ROUNDS} alternating pairs, the first 20 dropped as warm-up.`,
    };
  } finally {
    await manager.close();
    await modelServer.close();
  }
}

export default async function run(): Promise<BenchRow[]> {
  return [await roundTrip(), await startToListed(), await samplingRound()];
}
