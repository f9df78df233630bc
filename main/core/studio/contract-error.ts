import type { ContractErrorCode } from '../../../common/contract-errors.js';

/**
 * An expected failure a contract handler reports on purpose. The dispatcher passes its `code`
 * and `message` to the renderer unchanged, so the message must be written for a person and
 * must never contain a secret.
 */
export class ContractError extends Error {
  constructor(
    /** Stable kebab-case code, e.g. `no-workspace`: one of common/contract-errors.ts. */
    readonly code: ContractErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ContractError';
  }
}
