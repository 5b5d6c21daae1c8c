// One key per label, per kind of item. The buttons and the keyboard read the same table.

export const LABEL_OPTIONS = {
  span: [
    { id: 'covered', value: true, text: 'Covered', keys: ['c', '1'], tone: 'yes' },
    { id: 'not-covered', value: false, text: 'Not covered', keys: ['n', '2'], tone: 'no' },
  ],
  qa: [
    { id: 'supported', value: true, text: 'Supported', keys: ['s', '1'], tone: 'yes' },
    { id: 'not-supported', value: false, text: 'Not supported', keys: ['n', '2'], tone: 'no' },
  ],
  fact: [
    { id: 'S', value: 'S', text: 'Supported', keys: ['s', '1'], tone: 'yes' },
    { id: 'NS', value: 'NS', text: 'Not supported', keys: ['n', '2'], tone: 'no' },
    { id: 'IR', value: 'IR', text: 'Irrelevant', keys: ['i', '3'], tone: 'neutral' },
  ],
  pairwise: [1, 2, 3, 4, 5].map((n) => ({ id: String(n), value: n, text: String(n), keys: [String(n)], tone: 'scale' })),
  validation: [
    { id: 'valid', value: true, text: 'Valid', keys: ['v', '1'], tone: 'yes' },
    { id: 'invalid', value: false, text: 'Invalid', keys: ['x', '2'], tone: 'no' },
  ],
}

/** Extra per-kind commands (besides labels). */
const KIND_COMMANDS = {
  qa: { e: 'note' },
  fact: { e: 'edit', a: 'add', d: 'delete', delete: 'delete', m: 'merge', p: 'split' },
}

const NAV = {
  arrowdown: 'next', arrowright: 'next', j: 'next',
  arrowup: 'prev', arrowleft: 'prev', k: 'prev',
  u: 'undo', '?': 'help', escape: 'escape', ']': 'nextSection', '[': 'prevSection',
}

/**
 * Map a keydown (or any {key, ctrlKey, metaKey, altKey}) to an action for the current item kind.
 * Returns null when the key means nothing here.
 *   { type: 'label', value } | { type: 'next' | 'prev' | 'undo' | 'help' | 'escape' | 'submit' |
 *     'nextSection' | 'prevSection' | 'note' | 'edit' | 'add' | 'delete' | 'merge' | 'split' }
 */
export function keyAction(event, kind) {
  const key = (event.key || '').toLowerCase()
  const mod = event.ctrlKey || event.metaKey
  if (mod && key === 'z') return { type: 'undo' }
  if (mod && key === 'enter') return { type: 'submit' }
  if (mod || event.altKey) return null
  const option = (LABEL_OPTIONS[kind] || []).find((o) => o.keys.includes(key))
  if (option) return { type: 'label', value: option.value }
  const command = KIND_COMMANDS[kind]?.[key]
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

export function optionFor(kind, value) {
  return (LABEL_OPTIONS[kind] || []).find((o) => o.value === value) || null
}
