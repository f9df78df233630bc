import { CallPress } from '../../../main/core/studio/person-input.js';

/**
 * A STAND-IN for the person's press that came with a call, for tests that call the studio without
 * the IPC registration (which makes one only after it judged the studio window's input): it pays
 * for one of main's dialogs, until ended.
 */
export function pressStandIn(): CallPress {
  return CallPress.paid();
}
