/**
 * Quick open (Ctrl/⌘+P): what it lists for the open workspace (agents, runs, tools, models, and
 * its text files) and how a query ranks them. Pure: the dialog is QuickOpen.tsx.
 */
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { agentNameOf } from '../../../common/agent-name.js';
import { escapeHidden } from '../run/hidden-characters.js';

/** Where an item leads. */
export type QuickTarget =
  | { kind: 'agent'; path: string }
  | { kind: 'run'; runId: string }
  | { kind: 'tool'; alias: string }
  | { kind: 'model'; alias: string }
  | { kind: 'file'; path: string };

/** One item of the list (a PickerDialog item, with where it leads). */
export interface QuickItem {
  key: string;
  label: string;
  detail?: string;
  target: QuickTarget;
}

/** Most items listed at once: a query narrows the rest. */
export const MAX_QUICK_ITEMS = 60;

/** The items of `workspace`, agents first, then runs (newest first), tools, models and files. */
export function quickOpenItems(workspace: WorkspaceState, files: readonly string[] = []): QuickItem[] {
  const agents = new Set(workspace.agents);
  return [
    ...workspace.agents.map((path) => ({
      key: `agent:${path}`,
      label: agentNameOf(path),
      detail: `agent · ${path}`,
      target: { kind: 'agent' as const, path },
    })),
    ...workspace.runs.map((run) => ({
      key: `run:${run.runId}`,
      label: `${run.agent} ${new Date(run.startedAt).toLocaleString()}`,
      detail: `run · ${run.status}${run.model ? ` · ${run.model.alias}` : ''}`,
      target: { kind: 'run' as const, runId: run.runId },
    })),
    ...workspace.tools.map((tool) => ({
      key: `tool:${tool.alias}`,
      label: tool.alias,
      detail: `tool · ${tool.kind} · try it`,
      target: { kind: 'tool' as const, alias: tool.alias },
    })),
    ...workspace.models.map((model) => ({
      key: `model:${model.alias}`,
      label: model.alias,
      detail: `model · ${model.provider} ${model.model} · models.yaml`,
      target: { kind: 'model' as const, alias: model.alias },
    })),
    ...files
      .filter((path) => !agents.has(path))
      .map((path) => ({
        key: `file:${path}`,
        // A file's name is the workspace's (a clone's): drawn with its hidden characters escaped.
        label: escapeHidden(path.split('/').at(-1) ?? path),
        detail: `file · ${escapeHidden(path)}`,
        target: { kind: 'file' as const, path },
      })),
  ];
}

/**
 * How well `query` fits `text` (higher is better), or -1 when it does not: the whole text, its
 * start, a word's start, anywhere, or its letters in order (`smp` fits `summarize-page`).
 */
export function matchScore(text: string, query: string): number {
  const hay = text.toLocaleLowerCase();
  const needle = query.trim().toLocaleLowerCase();
  if (needle === '') return 0;
  if (hay === needle) return 100;
  if (hay.startsWith(needle)) return 80;
  const at = hay.indexOf(needle);
  if (at > 0 && /[\s/._-]/.test(hay[at - 1]!)) return 60;
  if (at >= 0) return 40;
  let from = 0;
  for (const char of needle) {
    const found = hay.indexOf(char, from);
    if (found < 0) return -1;
    from = found + 1;
  }
  return 10;
}

/** The items `query` fits, best first (the label counts more than the detail), at most {@link MAX_QUICK_ITEMS}. */
export function rankQuickOpen<T extends { label: string; detail?: string }>(items: readonly T[], query: string): T[] {
  if (query.trim() === '') return items.slice(0, MAX_QUICK_ITEMS);
  return items
    .map((item, order) => {
      const label = matchScore(item.label, query);
      const detail = matchScore(item.detail ?? '', query);
      const score = Math.max(label * 2, detail);
      return { item, order, score };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_QUICK_ITEMS)
    .map((entry) => entry.item);
}
