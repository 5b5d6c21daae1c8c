// Keydown → controller action. Which key means what lives in keyboard.js; this decides when a key counts
// (not behind the dialog, not while typing, Start first) and what each action does.
import { isTextKey, isTypingTarget, keyAction } from './keyboard.js'

/** Handle one keydown for the controller `c` (controller.js). */
export function handleKeydown(c, e) {
  if (e.defaultPrevented || e.isComposing || c.phase.value !== 'ready') return
  const target = (e.composedPath && e.composedPath()[0]) || e.target
  if (c.helpOpen.value) {
    if (e.key === 'Escape' || e.key === '?') {
      e.preventDefault()
      c.closeHelp()
    }
    return
  }
  if (isTypingTarget(target)) return
  if (!c.state.started) {
    if (e.key === 'Enter' && !c.isPreview.value && !(target && target.tagName === 'BUTTON')) {
      e.preventDefault()
      c.start()
    }
    if (e.key === '?') {
      e.preventDefault()
      c.openHelp()
    }
    return
  }
  // an editor (fact text, QA note) was just opened and is not focused yet: typed characters go into it, not to
  // navigation (keys typed right after e / p / a)
  if (isTextKey(e) && c.typeAhead(e.key)) {
    e.preventDefault()
    return
  }
  const action = keyAction(e, c.currentModule.value)
  if (!action) return
  e.preventDefault()
  runAction(c, action)
}

/** Do what a key action (keyboard.js keyAction) asks, on the current item; a kind's own commands (note, edit...)
 * are run by its module (protocols/). */
export function runAction(c, action) {
  const cur = c.current.value
  const { cursor } = c.state
  switch (action.type) {
    case 'label': if (cur) c.choose(cursor.section, cursor.item, action.value); break
    case 'next': c.move(1); break
    case 'prev': c.move(-1); break
    case 'nextSection': c.goToSection(cursor.section + 1); break
    case 'prevSection': c.goToSection(cursor.section - 1); break
    case 'undo': if (!c.isPreview.value) c.undo(); break
    case 'help': c.openHelp(); break
    case 'escape': c.message.value = null; break
    case 'submit': c.submit(); break
    default: c.currentModule.value?.run?.[action.type]?.(c, cur)
  }
}
