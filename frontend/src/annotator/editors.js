// The controller's text editors: an item's text (a kind whose items can be edited, split, merged, added, deleted:
// S.changeItems) and an item's note. Keys typed right after the key that opened an editor, before it has focus,
// go into it (typeAhead).
import { ref } from 'vue'
import * as S from './state.js'

/** `s`: the controller's session (controller.js); `items(si)`: the items of a section (controllerViews.js). */
export function createEditors(s, items) {
  const { disabled, model, state, view } = s
  const editing = ref(null) // key of the item whose text is being edited
  const editText = ref('') // the text in that editor
  const noteFor = ref(null) // id of the item whose note field is open
  let awaitingEditor = false // an editor was opened and has not taken focus yet
  const si = () => state.cursor.section

  /** An operation on the current section's item list (its kind's change), undoable; the key it produced. */
  function itemOp(op, ...args) {
    if (disabled.value) return null
    return S.changeItems(model.value, state, op, ...args)
  }
  function startEditing(key) {
    if (disabled.value) return
    const item = items(si()).find((x) => x.key === key)
    editText.value = item ? item.text : ''
    editing.value = key
    awaitingEditor = true
  }
  function closeEditor(which) {
    which.value = null
    awaitingEditor = false
    view.focusWork?.()
  }
  function addItem(after, group) {
    const key = itemOp('add', after, group)
    if (key) startEditing(key)
  }
  const setNote = (id, text) => S.setNote(model.value, state, si(), id, text)
  return {
    editing,
    editText,
    noteFor,
    itemOp,
    startEditing,
    stopEditing: () => closeEditor(editing),
    addItemAfter: (key) => addItem(key),
    addItemToGroup: (group) => addItem(null, group),
    note: (id) => S.noteOf(model.value, state, si(), id),
    setNote,
    openNote(id) {
      if (disabled.value) return
      noteFor.value = id
      awaitingEditor = true
    },
    closeNote: () => closeEditor(noteFor),
    editorFocused: () => (awaitingEditor = false),
    /** Another item was selected: its text editor closes. */
    leaveItem() {
      editing.value = null
      awaitingEditor = false
    },
    /** A character typed while an editor is open but not focused yet goes into it; true when it did. */
    typeAhead(key) {
      if (!awaitingEditor || (editing.value == null && noteFor.value == null)) return false
      if (editing.value != null) editText.value += key
      else setNote(noteFor.value, S.noteOf(model.value, state, si(), noteFor.value) + key)
      return true
    },
  }
}
