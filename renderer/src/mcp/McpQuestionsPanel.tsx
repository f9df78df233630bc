/**
 * The MCP servers' questions waiting for the person, above the tool calls in the Approvals tab:
 * each elicitation as a form (or a URL to open) and each sampling request as an approval card.
 * Shown only while one waits. Nothing here moves focus on its own when a card arrives; the cards
 * arm as approval cards do (their motion is counted here, like the approvals panel's).
 */
import { useEffect, useState } from 'react';
import { watchPersonInput } from '../approvals/deliberate-focus';
import { useRunOrigins } from '../approvals/run-origins';
import { useCardMotion } from '../approvals/use-card-arming';
import { ElicitationCard } from './ElicitationCard';
import { SamplingCard } from './SamplingCard';
import type { McpQuestions } from './use-mcp-questions';
import './mcp.css';

export function McpQuestionsPanel({ questions, alone }: { questions: McpQuestions; alone: boolean }) {
  const [lastAnswer, setLastAnswer] = useState('');
  useEffect(() => watchPersonInput(), []);
  const originOf = useRunOrigins();
  const keys = [...questions.elicitations, ...questions.samplings].map(
    (question) => `${question.runId}/${question.id}`,
  );
  const { panel, list, moved } = useCardMotion(keys.join(' '), keys.length > 0);
  const place = (index: number) => keys.slice(0, index).join(' ');
  // A card going away with focus in it hands focus to the panel, never to another card.
  const focusPanel = () => panel.current?.focus();
  return (
    <div
      ref={panel}
      // With no tool call waiting below, the questions take the tab's height.
      className={`mcp-questions${alone ? ' alone' : ''}`}
      role="region"
      aria-label="Questions from MCP servers"
      tabIndex={-1}
    >
      <p className="visually-hidden" role="status">
        {lastAnswer}
      </p>
      {keys.length === 0 ? null : (
        <>
          <h2 className="mcp-questions-heading small">{questions.text}</h2>
          <p className="muted small keyboard-hint">
            A server asks during a run’s call to it. Only you answer; a new or moved card waits a moment before it
            accepts keys and clicks.
          </p>
          <div ref={list} className="mcp-questions-list">
            {questions.elicitations.map((pending, index) => (
              <ElicitationCard
                key={pending.id}
                pending={pending}
                origin={originOf(pending.runId)}
                place={place(index)}
                moved={moved.get(`${pending.runId}/${pending.id}`) ?? 0}
                onAnswered={setLastAnswer}
                onFocusLost={focusPanel}
              />
            ))}
            {questions.samplings.map((pending, index) => (
              <SamplingCard
                key={pending.id}
                pending={pending}
                origin={originOf(pending.runId)}
                place={place(questions.elicitations.length + index)}
                moved={moved.get(`${pending.runId}/${pending.id}`) ?? 0}
                onDecided={setLastAnswer}
                onFocusLost={focusPanel}
              />
            ))}
          </div>
        </>
      )}
    </div>
  );
}
