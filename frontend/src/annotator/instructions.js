// The built-in guidance of a unit: the start card's line, the guides with worked examples and the key rows, from
// the kind modules of the unit's plan (protocols/), in plan order. The project's own instructions are shown above.
import { moduleOf } from './model.js'

export const COMMON_KEYS = [
  [['↓', 'j'], 'Next'],
  [['↑', 'k'], 'Previous'],
  [['[', ']'], 'Previous / next step'],
  [['u', 'Ctrl+Z'], 'Undo'],
  [['?'], 'Instructions'],
  [['Ctrl+Enter'], 'Submit'],
]

/** The distinct kind modules of the unit's sections, in plan order. */
const modules = (model) => [...new Set((model?.sections || []).map(moduleOf))]

/** What the unit asks, in a line or two: the intro of each protocol its plan uses. */
export const introLines = (model) => [...new Set(modules(model).map((m) => m.intro))]

/** The guides (title, body, examples) of the kinds the unit uses. */
export const guides = (model) => modules(model).map((m) => m.guide).filter(Boolean)

/** [[keys], text] rows: each kind's label keys (its keyHelp, or a row per label option) and commands, then the
 * common ones. */
export const keyRows = (model) => [
  ...modules(model).flatMap((m) => [...(m.keyHelp || m.options.map((o) => [o.keys, o.text])), ...(m.commandHelp || [])]),
  ...COMMON_KEYS,
]
