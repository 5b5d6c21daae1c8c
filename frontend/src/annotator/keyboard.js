// Keys: the navigation every section shares, and per plan kind its label keys and commands (the kind module's
// options and commands, protocols/). The buttons and the keyboard read the same tables.

const NAV = {
  arrowdown: 'next', arrowright: 'next', j: 'next',
  arrowup: 'prev', arrowleft: 'prev', k: 'prev',
  u: 'undo', '?': 'help', escape: 'escape', ']': 'nextSection', '[': 'prevSection',
}

/**
 * Map a keydown (or any {key, ctrlKey, metaKey, altKey}) to an action for the current section, whose kind module
 * (protocols/) is `module` (null: navigation only). Returns null when the key means nothing here.
 *   { type: 'label', value } | { type: 'next' | 'prev' | 'undo' | 'help' | 'escape' | 'submit' |
 *     'nextSection' | 'prevSection' } | { type: <a command of the module, e.g. 'note'> }
 */
export function keyAction(event, module) {
  const key = (event.key || '').toLowerCase()
  const mod = event.ctrlKey || event.metaKey
  if (mod && key === 'z') return { type: 'undo' }
  if (mod && key === 'enter') return { type: 'submit' }
  if (mod || event.altKey) return null
  const option = (module?.options || []).find((o) => o.keys.includes(key))
  if (option) return { type: 'label', value: option.value }
  const command = module?.commands?.[key]
  if (command) return { type: command }
  if (NAV[key]) return { type: NAV[key] }
  return null
}

/** Whether a key event comes from a place where the user types text. */
export function isTypingTarget(el) {
  if (!el || !el.tagName) return false
  const tag = el.tagName.toLowerCase()
  return tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable === true
}

/** Whether a keydown types a character (a single printable key, no Ctrl / Cmd / Alt). */
export function isTextKey(event) {
  return typeof event.key === 'string' && [...event.key].length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey
}
