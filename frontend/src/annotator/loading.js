// Where the unit comes from: embedded in the page (unit-data-id: the first paint needs no request) or fetched.
import { ApiError } from './api.js'

/**
 * The unit the page embedded in <script type="application/json" id=...>, or null (no id, no such element, not a
 * unit): then it is fetched. `root` is the element's root node (its id may live in a shadow root around it).
 */
export function embeddedUnit(id, root = null, doc = typeof document === 'undefined' ? null : document) {
  if (!id || !doc) return null
  const el = root?.getElementById?.(id) || doc.getElementById(id)
  if (!el) return null
  try {
    const data = JSON.parse(el.textContent)
    return data && typeof data === 'object' && Array.isArray(data.responses) ? data : null
  } catch {
    return null
  }
}

/** What the worker reads when the unit could not be loaded. */
export function loadErrorText(err) {
  return err instanceof ApiError && err.status === 403
    ? 'This link is not valid (expired, or not yours).'
    : 'Could not load the task. Check your connection and reload the page.'
}

/** Why a unit cannot be shown: its plan needs kinds this element version has no module for (`kinds`), or it has no
 * section at all. Nothing can be labeled, saved or submitted then. */
export const unsupportedPlanText = (kinds) =>
  kinds.length
    ? `This unit needs plan kind${kinds.length > 1 ? 's' : ''} ${kinds.join(', ')}, which this element version does not support. It cannot be labeled or submitted here.`
    : 'This unit has nothing to label (its plan is empty). It cannot be submitted.'
