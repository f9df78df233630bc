/** The mark on the header's Rules button when the rules need the person: a file that cannot be read, or ignored files. */
import { rulesNeedAttention, useRules } from './rules-store';

export function RulesHeaderMark() {
  const { listing } = useRules();
  if (!rulesNeedAttention(listing)) return null;
  return (
    <span className="rules-header-mark" title="Your approval rules need attention: open Rules">
      {' '}
      <span aria-hidden="true">⚠</span>
      <span className="visually-hidden">(needs attention)</span>
    </span>
  );
}
