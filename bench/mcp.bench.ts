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
import { createToolRunner } from '../main/core/tools/tool-runner.js';
import { type BenchRow, median, now } from './bench-kit.js';

/**
 * MCP benchmarks against the real `@modelcontextprotocol/server-everything` over stdio:
 * the host's tools.call path to its echo tool, and server start until tools are listed, each
 * against the SDK client alone in the same run.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = 300;
const STARTS = 7;

function spec(): McpServerSpec {
  const yaml = `everything:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(server)}, stdio]\n  tools:\n    echo: { approval: auto, trust: trusted }\n`;
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
    secrets: { get: async () => undefined },
  });
  const client = await sdkClient();
  try {
    await manager.listTools();
    const catalog = new McpAwareCatalog([], manager);
    const dispatcher = new ToolDispatcher({
      runId: 'bench',
      nonce: 'benchnonce',
      catalog,
      runner: createToolRunner({ workspaceRoot: root, secrets: { get: async () => undefined }, mcp: manager }),
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
      how: `server-everything over stdio. Ours: ToolDispatcher.call (argument validation, the approval gate with the tool at approval auto, the ToolRunner, McpServerManager, the SDK client, result conversion) to its echo tool; baseline: a separate SDK Client calling the same tool on its own server process. ${CALLS} alternating pairs, the first 20 dropped as warm-up. The Lua worker's own tools.call hop is measured in run-engine.bench.ts and is not part of either side.`,
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
      secrets: { get: async () => undefined },
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

export default async function run(): Promise<BenchRow[]> {
  return [await roundTrip(), await startToListed()];
}
