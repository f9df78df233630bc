/**
 * The MCP servers' questions waiting for the person (forms, URLs, sampling requests), kept up to
 * date from main's `elicitation-*` and `sampling-*` events, and read again from `mcp:questions`
 * when a workspace opens (after a window reload too), as the waiting calls are. Nothing here answers: the cards do, on the person's press.
 */
import { useCallback, useState } from 'react';
import type { PendingElicitation, PendingSampling } from '../../../common/mcp-person.js';
import { call, useStudioEvent } from '../shell/studio-api';
import { questionsText } from './elicitation-form';

/** What {@link useMcpQuestions} gives. */
export interface McpQuestions {
  elicitations: PendingElicitation[];
  samplings: PendingSampling[];
  /** How many wait, both kinds. */
  count: number;
  /** "2 questions from MCP servers", or '' when none waits. */
  text: string;
  /** Asks main for the questions waiting (after a workspace opened, or a window reload). */
  reload: () => Promise<void>;
}

/** Adds or replaces `item` (by id), keeping the order they came in. */
function upsert<T extends { id: string }>(list: T[], item: T): T[] {
  return list.some((old) => old.id === item.id)
    ? list.map((old) => (old.id === item.id ? item : old))
    : [...list, item];
}

export function useMcpQuestions(): McpQuestions {
  const [elicitations, setElicitations] = useState<PendingElicitation[]>([]);
  const [samplings, setSamplings] = useState<PendingSampling[]>([]);
  useStudioEvent('elicitation-pending', (pending) => setElicitations((list) => upsert(list, pending)));
  useStudioEvent('elicitation-resolved', ({ id }) => setElicitations((list) => list.filter((old) => old.id !== id)));
  useStudioEvent('sampling-pending', (pending) => setSamplings((list) => upsert(list, pending)));
  useStudioEvent('sampling-resolved', ({ id }) => setSamplings((list) => list.filter((old) => old.id !== id)));
  const reload = useCallback(async () => {
    const waiting = await call('mcp:questions', {});
    setElicitations(waiting.elicitations);
    setSamplings(waiting.samplings);
  }, []);
  const count = elicitations.length + samplings.length;
  return { elicitations, samplings, count, text: questionsText(count), reload };
}
