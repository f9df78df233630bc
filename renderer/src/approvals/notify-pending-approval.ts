import type { PendingApproval } from '../../../common/studio-schemas.js';
import { runOrigins } from './run-origins';

/**
 * Tells the OS that a call waits for a decision, when the window is in the background. Permission
 * is asked lazily, on the first such call. Electron's session policy may deny the request (and
 * some hosts have no Notification at all), so every step is guarded: a missing notification must
 * never break the approval flow.
 */
export function notifyPendingApproval(approval: PendingApproval): void {
  if (document.hasFocus() || typeof Notification === 'undefined') return;
  // The agent that asks (as the card names it): two agents may call the same tool.
  const agent = runOrigins.get(approval.runId)?.agent;
  const show = (): void => {
    try {
      new Notification('PromptForge Studio: a tool call waits for you', {
        body: `${agent !== undefined ? `${agent}: ` : ''}${approval.alias} (${approval.callId}) needs approval${approval.reason === 'tainted' ? ': its arguments carry untrusted text' : ''}.`,
        tag: `${approval.runId}/${approval.callId}`,
      });
    } catch {
      // Some hosts expose Notification but refuse to construct one; the badge still shows.
    }
  };
  if (Notification.permission === 'granted') show();
  else if (Notification.permission === 'default') {
    Notification.requestPermission().then(
      (permission) => {
        if (permission === 'granted') show();
      },
      () => undefined,
    );
  }
}
