// The annotator's controller: loads the unit, owns the session (state.js) and exposes the actions the element's
// views and keys call; persistence.js saves the work, keyDispatch.js maps keys to actions, submission.js words the
// outcome. Vue reactivity only, no components and no DOM beyond the window it is given: it runs and is tested
// without mounting the element (tests/controller.test.js).
import { computed, effectScope, markRaw, nextTick, reactive, ref, shallowRef, watch } from 'vue'
import { createApi } from './api.js'
import * as H from './highlights.js'
import { handleKeydown } from './keyDispatch.js'
import { loadErrorText } from './loading.js'
import { createPersistence } from './persistence.js'
import * as S from './state.js'
import { SUBMIT_RETRY, handOff, missingMessage, retryingMessage, submitErrorMessage, submitRetryDelay } from './submission.js'
import { createTimeOnTask } from './timeOnTask.js'

/**
 * props: the element's attributes (token, apiBase, preview, submitTo, assignmentId, completionUrl), read reactively.
 * view: what only the element can do, all optional: embeddedUnit() → unit | null (read before the first render),
 *   focusStart(), focusWork(), revealCurrent() (scroll the current item into view), submitted(serverResponse).
 * options: fetchImpl, autosave (createAutosave options, e.g. a shorter delay in tests), submitRetry (overrides of
 *   submission.js's SUBMIT_RETRY: attempts, baseDelayMs, maxDelayMs).
 */
export function createController(props, view = {}, options = {}) {
  const scope = effectScope(true)
  const c = scope.run(() => setup(props, view, options))
  const unmount = c.unmount
  c.unmount = () => {
    unmount()
    scope.stop()
  }
  return c
}

function setup(props, view, { fetchImpl, autosave, submitRetry: retryOptions } = {}) {
  const api = createApi({ apiBase: props.apiBase, token: props.token, fetchImpl })
  const phase = ref('loading') // loading | error | ready | submitted
  const loadError = ref('')
  const model = shallowRef(null)
  const state = reactive({ labels: {}, cursor: { section: 0, item: 0 }, history: [], started: false, elapsedMs: 0 })
  const saveStatus = ref('idle')
  const helpOpen = ref(false)
  const message = ref(null) // { tone, text, items? }
  const submitting = ref(false)
  const retryPolicy = { ...SUBMIT_RETRY, ...retryOptions }
  const submitRetry = ref(null) // { inSeconds, attempt, attempts } while a failed submission waits to be sent again
  let wakeRetry = null // ends that wait early ("Try again", back online)
  let stopped = false // unmounted: no more tries
  const editing = ref(null) // key of the fact being edited
  const editText = ref('') // the text in the fact editor
  const noteFor = ref(null) // qa id whose note field is focused
  const resumed = ref(false)
  let awaitingEditor = false // an editor was opened and has not taken focus yet
  let timeOnTask = createTimeOnTask(0)
  let restoredFromBackup = false
  const persistence = createPersistence({ api, token: props.token, onStatus: (s) => (saveStatus.value = s), autosave })

  const isPreview = computed(
    () => (props.preview != null && props.preview !== 'false') || !!model.value?.unit.assignment?.preview,
  )
  // nothing can be labeled in preview, after submit, while submitting
  const locked = computed(() => isPreview.value || phase.value !== 'ready' || submitting.value)
  // ... nor before Start. The lists' buttons follow `locked` only: the Start overlay covers them, and Start then
  // re-renders nothing in the lists (it is on the path to the first label)
  const disabled = computed(() => locked.value || !state.started)

  // ---- loading ----
  function applyUnit(unit) {
    const m = S.buildModel(unit)
    const { draft, fromBackup } = persistence.restore(unit.draft)
    Object.assign(state, S.fromDraft(m, draft))
    // a restored draft still starts with the Start (Resume) button: it gives the frame focus
    resumed.value = state.started
    state.started = false
    timeOnTask = createTimeOnTask(state.elapsedMs)
    if (unit.draft_saved_at) saveStatus.value = 'saved'
    model.value = markRaw(m)
    phase.value = unit.assignment?.status === 'submitted' ? 'submitted' : 'ready'
    restoredFromBackup = fromBackup
  }
  function afterLoad() {
    if (phase.value === 'submitted') persistence.forget()
    // a local copy newer than the server's draft goes back to the server
    else if (restoredFromBackup && phase.value === 'ready' && !isPreview.value) persistence.resend(S.toDraft(state, timeOnTask.ms))
  }
  async function load() {
    try {
      applyUnit(await api.getUnit())
      afterLoad()
      await nextTick()
      if (!isPreview.value && phase.value === 'ready') view.focusStart?.()
    } catch (err) {
      phase.value = 'error'
      loadError.value = loadErrorText(err)
    }
  }
  // an embedded unit is applied before the first render: the first paint already has the Start button
  const embedded = view.embeddedUnit?.()
  if (embedded) {
    try {
      applyUnit(embedded)
    } catch {
      phase.value = 'loading' // malformed: fetch it instead
    }
  }

  watch(
    () => [state.labels, state.cursor, state.started],
    () => {
      if (phase.value !== 'ready' || !state.started || isPreview.value) return
      persistence.record(S.toDraft(state, timeOnTask.ms))
    },
    { deep: true },
  )
  // keep the current item in view
  watch(
    () => [state.cursor.section, state.cursor.item],
    async () => {
      await nextTick()
      view.revealCurrent?.()
    },
  )

  // ---- what is shown ----
  const current = computed(() => (model.value ? S.currentItem(model.value, state) : null))
  const currentSection = computed(() => model.value?.sections[state.cursor.section] || null)
  const currentResponse = computed(() => {
    const s = currentSection.value
    return s && s.response != null ? model.value.responses[s.response] : null
  })
  const responseMarks = computed(() => H.responseMarks(currentSection.value, current.value, currentResponse.value))
  const supportQuery = computed(() => H.supportQuery(currentSection.value, current.value))
  const progress = computed(() => (model.value ? S.progress(model.value, state) : { sections: [], done: 0, total: 0 }))
  const progressText = computed(() => (model.value ? S.progressLabel(model.value, state) : ''))
  const value = (si, item) => S.itemValue(model.value, state, model.value.sections[si], item)
  const derived = (si, item) => S.isDerived(model.value, state, model.value.sections[si], item)
  const isCurrent = (si, i) => state.cursor.section === si && state.cursor.item === i
  const items = (si) => S.sectionItems(model.value, state, si)

  // ---- actions ----
  function start() {
    if (isPreview.value || phase.value !== 'ready') return
    state.started = true
    timeOnTask.start()
    nextTick(() => view.focusWork?.())
  }
  function choose(si, i, v) {
    if (disabled.value) return
    S.select(model.value, state, si, i)
    S.label(model.value, state, v)
    message.value = null
  }
  function select(si, i) {
    if (state.cursor.section === si && state.cursor.item === i) return
    S.select(model.value, state, si, i)
    editing.value = null
    awaitingEditor = false
  }
  function factOp(op, ...args) {
    if (disabled.value) return null
    return S.changeFacts(model.value, state, op, ...args)
  }
  function startEditing(key) {
    if (disabled.value) return
    const f = items(state.cursor.section).find((x) => x.key === key)
    editText.value = f ? f.text : ''
    editing.value = key
    awaitingEditor = true
  }
  function closeEditor(which) {
    which.value = null
    awaitingEditor = false
    view.focusWork?.()
  }
  function addFact(after, sentenceIndex) {
    const k = factOp('add', after, sentenceIndex)
    if (k) startEditing(k)
  }
  function openHelp() {
    helpOpen.value = true
  }
  function closeHelp() {
    helpOpen.value = false
    nextTick(() => (state.started ? view.focusWork?.() : view.focusStart?.()))
  }

  /** Wait `ms` before the next try, counting down in submitRetry; "Try again" or coming back online ends it early. */
  function waitToRetry(ms, attempt) {
    return new Promise((resolve) => {
      const ends = Date.now() + ms
      const show = () => (submitRetry.value = { inSeconds: Math.max(0, Math.ceil((ends - Date.now()) / 1000)), attempt, attempts: retryPolicy.attempts })
      show()
      const tick = setInterval(show, 1000)
      const timer = setTimeout(done, ms)
      function done() {
        clearInterval(tick)
        clearTimeout(timer)
        wakeRetry = null
        submitRetry.value = null
        resolve()
      }
      wakeRetry = done
    })
  }

  async function submit() {
    if (isPreview.value || submitting.value || phase.value !== 'ready') return
    const m = model.value
    const missing = S.missingItems(m, state)
    if (missing.length) {
      S.select(m, state, missing[0].section, missing[0].item)
      message.value = missingMessage(missing)
      return
    }
    submitting.value = true // labels are locked until the last try ends
    message.value = { tone: 'info', text: 'Submitting…' }
    const labels = S.submitLabels(m, state)
    try {
      for (let attempt = 1; !stopped; attempt++) {
        if (attempt > 1) message.value = { tone: 'info', text: `Submitting… (try ${attempt} of ${retryPolicy.attempts})` }
        let res
        try {
          // Save the newest draft first: a debounced save landing after the submission would be refused (409), and
          // if the submission fails the server still holds every label.
          await persistence.flush()
          res = await api.submit(labels, timeOnTask.ms)
        } catch (err) {
          // one request at a time; a repeat of a submission the server already recorded answers duplicate: true
          const delay = submitRetryDelay(err, attempt, retryPolicy)
          if (delay == null || stopped) {
            message.value = submitErrorMessage(err)
            return
          }
          message.value = retryingMessage(err)
          await waitToRetry(delay, attempt + 1)
          continue
        }
        persistence.finish()
        timeOnTask.pause()
        phase.value = 'submitted'
        message.value = null
        view.submitted?.(res)
        handOff(props)
        return
      }
    } finally {
      submitting.value = false
    }
  }
  /** "Try again": send a waiting submission now, or start a new one after the tries ran out; never a second request
   * while one is on its way. */
  function retrySubmit() {
    if (wakeRetry) wakeRetry()
    else if (!submitting.value) submit()
  }

  // ---- page lifecycle: never lose work ----
  let detach = null
  function mount(win = window, doc = document) {
    const onKey = (e) => handleKeydown(c, e)
    const onVisibility = () => {
      if (doc.visibilityState === 'hidden') {
        timeOnTask.pause()
        persistence.flushOnExit()
      } else if (state.started && phase.value === 'ready') timeOnTask.start()
    }
    const onPageHide = () => persistence.flushOnExit()
    const onOnline = () => {
      persistence.retryNow()
      wakeRetry?.()
    }
    win.addEventListener('keydown', onKey)
    doc.addEventListener('visibilitychange', onVisibility)
    win.addEventListener('pagehide', onPageHide)
    win.addEventListener('online', onOnline)
    detach = () => {
      win.removeEventListener('keydown', onKey)
      doc.removeEventListener('visibilitychange', onVisibility)
      win.removeEventListener('pagehide', onPageHide)
      win.removeEventListener('online', onOnline)
    }
    if (phase.value === 'loading') load()
    else afterLoad() // the Start button focuses itself when it mounts
  }
  function unmount() {
    stopped = true
    wakeRetry?.()
    detach?.()
    detach = null
    persistence.flushOnExit()
    persistence.close()
  }

  const c = {
    // state, read by the views
    phase, loadError, state, saveStatus, helpOpen, message, submitting, submitRetry, editing, editText, noteFor, resumed,
    get model() {
      return model.value
    },
    isPreview, locked, disabled, current, currentSection, currentResponse, responseMarks, supportQuery, progress, progressText,
    // queries the item lists use
    items,
    value,
    valueName: (si, item) => {
      const v = value(si, item)
      return v === undefined || v === null ? '' : String(v)
    },
    derived,
    isCurrent,
    itemClass: (si, i, item) => {
      const v = value(si, item)
      return { current: isCurrent(si, i), labeled: v !== undefined && v !== null, derived: derived(si, item) }
    },
    // actions
    load, start, choose, select, factOp, submit, retrySubmit, openHelp, closeHelp, mount, unmount,
    move: (delta) => S.move(model.value, state, delta),
    goToSection: (si) => S.goToSection(model.value, state, si),
    undo: () => S.undo(state),
    setNote: (qaId, text) => S.setNote(state, qaId, text),
    openNote(qaId) {
      if (disabled.value) return
      noteFor.value = qaId
      awaitingEditor = true
    },
    closeNote: () => closeEditor(noteFor),
    startEditing,
    stopEditing: () => closeEditor(editing),
    editorFocused: () => (awaitingEditor = false),
    addFactAfter: (key) => addFact(key),
    addFactToSentence: (sentenceIndex) => addFact(null, sentenceIndex),
    /** A character typed while an editor is open but not focused yet goes into it; true when it did. */
    typeAhead(key) {
      if (!awaitingEditor || (editing.value == null && noteFor.value == null)) return false
      if (editing.value != null) editText.value += key
      else S.setNote(state, noteFor.value, (state.labels.notes[noteFor.value] || '') + key)
      return true
    },
  }
  return c
}
