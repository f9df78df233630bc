/**
 * A line where calls wait (the Approvals panel) when the person's rules are not what they think: a
 * rules file that cannot be read (no rule applies, every call asks) or rules files that are ignored.
 */
import { DrawnPlain } from '../approvals/DefinitionChange';
import { rulesNeedAttention, useRules } from './rules-store';

export function RulesNotice({ onOpenRules }: { onOpenRules: () => void }) {
  const { listing } = useRules();
  if (!listing || !rulesNeedAttention(listing)) return null;
  const text =
    listing.state === 'broken'
      ? 'Your approval rules file cannot be read, so no rule applies and every call asks until it is fixed.'
      : listing.state === 'ignored'
        ? `Your approval rules are ignored: ${listing.warnings[0] ?? ''}`
        : `${listing.warnings.length === 1 ? 'A rules file is' : `${listing.warnings.length} rules files are`} ignored: ${listing.warnings[0] ?? ''}`;
  return (
    <div className="rules-notice small" role="note">
      <span aria-hidden="true">⚠ </span>
      <DrawnPlain text={text} />{' '}
      <button type="button" className="button button-small" onClick={onOpenRules}>
        Open Rules
      </button>
    </div>
  );
}
