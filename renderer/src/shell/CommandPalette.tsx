import { actionMatchesQuery, boundActions, type ActionHandlers } from './actions';
import { PickerDialog, type PickerItem } from './PickerDialog';

/**
 * The command palette (Ctrl/⌘+Shift+P): every window action with its shortcut, filtered as you
 * type (every word must match its title, keys or keywords). An action that cannot run now is
 * listed greyed with the reason. The list itself is a {@link PickerDialog}.
 */
export function CommandPalette({ handlers, onClose }: { handlers: ActionHandlers; onClose: () => void }) {
  const actions = boundActions(handlers);
  const items: PickerItem[] = actions.map((action) => ({
    key: action.spec.id,
    label: action.spec.title,
    ...(action.spec.keys !== undefined && { keys: action.spec.keys }),
    ...(action.handler.unavailable && { unavailable: action.handler.unavailable }),
  }));
  return (
    <PickerDialog
      label="Command palette"
      inputLabel="Type to filter the actions"
      noun="Actions"
      items={items}
      filter={(all, query) =>
        all.filter((item) => actionMatchesQuery(actions.find((action) => action.spec.id === item.key)!.spec, query))
      }
      onPick={(item) => actions.find((action) => action.spec.id === item.key)?.handler.run()}
      onClose={onClose}
    />
  );
}
