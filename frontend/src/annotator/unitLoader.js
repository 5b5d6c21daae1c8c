// The controller's loading part: a unit (fetched, or embedded in the page) becomes the session's model and state,
// its draft restored (the server's, or a newer local copy), the clock set to the time already spent. A unit whose
// plan the element cannot render (loading.js UnsupportedPlanError) is an error: nothing to label, nothing saved.
import { markRaw, nextTick } from 'vue'
import { UnsupportedPlanError, loadErrorText } from './loading.js'
import * as S from './state.js'
import { createTimeOnTask } from './timeOnTask.js'

/** `s`: the controller's session (controller.js). */
export function createUnitLoader(s) {
  const { persistence, state, resumed, saveStatus, model, phase, loadError, isPreview, api, view } = s
  let restoredFromBackup = false

  function applyUnit(unit) {
    const m = S.buildModel(unit)
    if (m.unsupported.length || !m.sections.length) throw new UnsupportedPlanError(m.unsupported)
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
  }
  function fail(err) {
    phase.value = 'error'
    loadError.value = loadErrorText(err)
  }
  function afterLoad() {
    if (phase.value === 'submitted') persistence.forget()
    // a local copy newer than the server's draft goes back to the server
    else if (restoredFromBackup && phase.value === 'ready' && !isPreview.value) persistence.resend(S.toDraft(state, s.clock.ms))
  }
  async function load() {
    try {
      applyUnit(await api.getUnit())
      afterLoad()
      await nextTick()
      if (!isPreview.value && phase.value === 'ready') view.focusStart?.()
    } catch (err) {
      fail(err)
    }
  }
  /** An embedded unit is applied before the first render: the first paint already has the Start button. A
   * malformed one is fetched instead; one the element cannot render is an error at once. */
  function applyEmbedded(unit) {
    if (!unit) return
    try {
      applyUnit(unit)
    } catch (err) {
      if (err instanceof UnsupportedPlanError) fail(err)
      else phase.value = 'loading'
    }
  }
  return { load, afterLoad, applyEmbedded }
}
