import { splitEnvelopeMarkers } from '../run/conversation-builder';

/**
 * Text from a run (model output, tool output, arguments) shown as data: React text nodes only,
 * never markup. The run's `<untrusted_input_…>` envelope tags are highlighted so a person sees
 * where untrusted content starts and ends.
 */
export function InertText({ text, className }: { text: string; className?: string }) {
  return (
    <pre className={className ?? 'inert-text'}>
      {splitEnvelopeMarkers(text).map((segment, index) =>
        segment.marker ? (
          <span key={index} className="envelope-marker" title="untrusted input envelope">
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
    </pre>
  );
}
