/**
 * "Always allow…" on a card: the narrowest rule covering this call (this tool, these argument
 * values, this workspace, this definition), from the core, in the rule form to widen before
 * saving. Saving asks the person in main's own dialog, and runs the call when the rule covers it.
 */
import { useEffect, useState } from 'react';
import type { RuleProposal } from '../../../common/rules-schemas.js';
import type { PendingApproval } from '../../../common/studio-schemas.js';
import { draftFromRule } from '../rules/rule-form';
import { RuleForm, type SaveOutcome } from '../rules/RuleForm';
import { call, describeError } from '../shell/studio-api';

export function AlwaysAllow({
  approval,
  onCancel,
  onSaved,
}: {
  approval: PendingApproval;
  onCancel: () => void;
  onSaved: (outcome: SaveOutcome) => void;
}) {
  const [proposal, setProposal] = useState<RuleProposal | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { runId, callId } = approval;
  useEffect(() => {
    let current = true;
    call('rules:propose', { runId, callId }).then(
      (answer) => {
        if (current) setProposal(answer);
      },
      (failure: unknown) => {
        if (current) setError(describeError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [runId, callId]);
  if (error !== null)
    return (
      <div className="rule-form">
        <p className="error-text small" role="alert">
          No rule could be proposed: {error}
        </p>
        <button type="button" className="button" onClick={onCancel}>
          Back
        </button>
      </div>
    );
  if (proposal === null)
    return (
      <p className="muted small" role="status">
        Finding the narrowest rule for this call…
      </p>
    );
  return (
    <RuleForm
      base={draftFromRule(proposal.rule)}
      title="Always allow…"
      args={approval.arguments}
      suggestions={proposal.suggestions}
      {...(proposal.server && { server: proposal.server })}
      workspace={proposal.workspace}
      callRef={{ runId, callId }}
      saveLabel="Save the rule…"
      onCancel={onCancel}
      onSaved={onSaved}
    />
  );
}
