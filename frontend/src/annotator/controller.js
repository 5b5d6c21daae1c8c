// The annotator's controller: loads the unit, owns the session (state.js) and exposes the actions the element's
// views and keys call. Vue reactivity only, no components and no DOM beyond the window it is given: it runs and is
// tested without mounting the element (tests/controller.test.js). It knows no plan kind: what a kind does is its
// module's (protocols/). Its parts, each in its own file:
//   unitLoader.js (the unit becomes the session), controllerViews.js (what is shown), editors.js (item text and
//   notes), submitter.js (submit and its retries), pageLifecycle.js (listeners, never lose work);
//   persistence.js saves the work, keyDispatch.js maps keys to actions, submission.js words the outcome.
import { computed, effectScope, nextTick, reactive, ref, shallowRef, watch } from 'vue'
import { createApi } from './api.js'
import { createEditors } from './editors.js'
import { createViews } from './controllerViews.js'
import { handleKeydown } from './keyDispatch.js'
import { createPageLifecycle } from './pageLifecycle.js'
import { createPersistence } from './persistence.js'
import * as S from './state.js'
import { createSubmitter } from './submitter.js'
import { createTimeOnTask } from './timeOnTask.js'
import { createUnitLoader } from './unitLoader.js'

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

/**
 * The session every part shares: the API and persistence, the unit's model and state, the phase, what the footer
 * says, the clock (replaced when a unit is loaded), and whether labeling is possible now.
 */
function createSession(props, view, { fetchImpl, autosave }) {
  const api = createApi({ apiBase: props.apiBase, token: props.token, fetchImpl })
  const s = {
    props,
    view,
    api,
    phase: ref('loading'), // loading | error | ready | submitted
    loadError: ref(''),
    model: shallowRef(null),
    state: reactive({ labels: {}, cursor: { section: 0, item: 0 }, history: [], started: false, elapsedMs: 0 }),
    saveStatus: ref('idle'),
    helpOpen: ref(false),
    message: ref(null), // { tone, text, items?, retry? }
    submitting: ref(false),
    resumed: ref(false),
    clock: createTimeOnTask(0),
  }
  s.persistence = createPersistence({ api, token: props.token, onStatus: (v) => (s.saveStatus.value = v), autosave })
  s.isPreview = computed(() => (props.preview != null && props.preview !== 'false') || !!s.model.value?.unit.assignment?.preview)
  // nothing can be labeled in preview, after submit, while submitting
  s.locked = computed(() => s.isPreview.value || s.phase.value !== 'ready' || s.submitting.value)
  // ... nor before Start. The lists' buttons follow `locked` only: the Start overlay covers them, and Start then
  // re-renders nothing in the lists (it is on the path to the first label)
  s.disabled = computed(() => s.locked.value || !s.state.started)
  return s
}

/** Every change to the labels, the cursor or Start is recorded as a draft (persistence.js debounces the saves);
 * the current item is kept in view. */
function watchSession(s) {
  const { state } = s
  watch(
    () => [state.labels, state.cursor, state.started],
    () => {
      if (s.phase.value !== 'ready' || !state.started || s.isPreview.value) return
      s.persistence.record(S.toDraft(state, s.clock.ms))
    },
    { deep: true },
  )
  watch(
    () => [state.cursor.section, state.cursor.item],
    async () => {
      await nextTick()
      s.view.revealCurrent?.()
    },
  )
}

/** The labeling actions the views and keys call: start, choose, move, undo, help. */
function createActions(s, editors) {
  const { state } = s
  const model = () => s.model.value
  return {
    start() {
      if (s.isPreview.value || s.phase.value !== 'ready') return
      state.started = true
      s.clock.start()
      nextTick(() => s.view.focusWork?.())
    },
    choose(si, i, v) {
      if (s.disabled.value) return
      S.select(model(), state, si, i)
      S.label(model(), state, v)
      s.message.value = null
    },
    select(si, i) {
      if (state.cursor.section === si && state.cursor.item === i) return
      S.select(model(), state, si, i)
      editors.leaveItem()
    },
    move: (delta) => S.move(model(), state, delta),
    goToSection: (si) => S.goToSection(model(), state, si),
    undo: () => S.undo(state),
    openHelp() {
      s.helpOpen.value = true
    },
    closeHelp() {
      s.helpOpen.value = false
      nextTick(() => (state.started ? s.view.focusWork?.() : s.view.focusStart?.()))
    },
  }
}

function setup(props, view, { fetchImpl, autosave, submitRetry: retryOptions } = {}) {
  const s = createSession(props, view, { fetchImpl, autosave })
  const loader = createUnitLoader(s)
  loader.applyEmbedded(view.embeddedUnit?.())
  watchSession(s)
  const views = createViews(s)
  const editors = createEditors(s, views.items)
  const submitter = createSubmitter(s, retryOptions)
  const lifecycle = createPageLifecycle(s, { key: (e) => handleKeydown(c, e), online: submitter.wake })

  const c = {
    // state, read by the views
    phase: s.phase,
    loadError: s.loadError,
    state: s.state,
    saveStatus: s.saveStatus,
    helpOpen: s.helpOpen,
    message: s.message,
    submitting: s.submitting,
    resumed: s.resumed,
    get model() {
      return s.model.value
    },
    isPreview: s.isPreview,
    locked: s.locked,
    disabled: s.disabled,
    ...views,
    ...editors,
    ...createActions(s, editors),
    load: loader.load,
    submitRetry: submitter.submitRetry,
    submit: submitter.submit,
    retrySubmit: submitter.retrySubmit,
    mount(win = window, doc = document) {
      lifecycle.attach(win, doc)
      if (s.phase.value === 'loading') loader.load()
      else loader.afterLoad() // the Start button focuses itself when it mounts
    },
    unmount() {
      submitter.stop()
      lifecycle.detach()
    },
  }
  return c
}
