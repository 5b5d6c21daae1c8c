// The controller's loading part: a unit (fetched, or embedded in the page) becomes the session's model and state,
// its draft restored (the server's, or a newer local copy), the clock set to the time already spent. A unit whose
// plan the element cannot render (loading.js unsupportedPlanText) is an error: nothing to label, nothing saved.
import { markRaw, nextTick } from 'vue'
import { loadErrorText, unsupportedPlanText } from './loading.js'
import * as S from './state.js'
import { createTimeOnTask } from './timeOnTask.js'

/** `s`: the controller's session (controller.js). */
export function createUnitLoader(s) {
  const { persistence, state, resumed, saveStatus, model, phase, loadError, isPreview, api, view } = s
  let restoredFromBackup = false

  /** The unit becomes the session; false (and the error shown) when the element cannot render its plan. */
  function applyUnit(unit) {
    api.noteUnit?.(unit) // the draft version the next save names (fetched or embedded alike)
    const m = S.buildModel(unit)
    if (m.unsupported.length || !m.sections.length) return fail(unsupportedPlanText(m.unsupported))
    const { draft, fromBackup } = persistence.restore(unit.draft)
    Object.assign(state, S.fromDraft(m, draft))
    // a restored draft still starts with the Start (Resume) button: it gives the frame focus
    resumed.value = state.started
    state.started = false
    s.clock = createTimeOnTask(state.elapsedMs)
    if (unit.draft_saved_at) saveStatus.value = 'saved'
    model.value = markRaw(m)
    phase.value = unit.assignment?.status === 'submitted' ? 'submitted' : 'ready'
    restoredFromBackup = fromBackup
    return true
  }
  function fail(text) {
    phase.value = 'error'
    loadError.value = text
    return false
  }
  function afterLoad() {
    if (phase.value === 'submitted') persistence.forget()
    // a local copy newer than the server's draft goes back to the server
    else if (restoredFromBackup && phase.value === 'ready' && !isPreview.value) persistence.resend(S.toDraft(state, s.clock.ms))
  }
  async function load() {
    try {
      if (!applyUnit(await api.getUnit())) return
      afterLoad()
      await nextTick()
      if (!isPreview.value && phase.value === 'ready') view.focusStart?.()
    } catch (err) {
      fail(loadErrorText(err))
    }
  }
  /** An embedded unit is applied before the first render: the first paint already has the Start button. A
   * malformed one is fetched instead; one the element cannot render is an error at once. */
  function applyEmbedded(unit) {
    if (!unit) return
    try {
      applyUnit(unit)
    } catch {
      phase.value = 'loading'
    }
  }
  return { load, afterLoad, applyEmbedded }
}
