// The controller's submission: refuse while items are missing (jump to the first), then send the labels, trying
// again after a passing failure (submission.js says which, and how long to wait) with a countdown; one request at a
// time, labels locked until the last try ends.
import { ref } from 'vue'
import * as S from './state.js'
import { SUBMIT_RETRY, handOff, missingMessage, retryingMessage, submitErrorMessage, submitRetryDelay } from './submission.js'

/** `s`: the controller's session (controller.js); `retryOptions`: overrides of SUBMIT_RETRY. */
export function createSubmitter(s, retryOptions) {
  const { persistence, phase, message, view, props, api, isPreview, submitting, model, state } = s
  const policy = { ...SUBMIT_RETRY, ...retryOptions }
  const submitRetry = ref(null) // { inSeconds, attempt, attempts } while a failed submission waits to be sent again
  let wakeRetry = null // ends that wait early ("Try again", back online)
  let stopped = false // unmounted: no more tries

  /** Wait `ms` before the next try, counting down in submitRetry; "Try again" or coming back online ends it early. */
  function waitToRetry(ms, attempt) {
    return new Promise((resolve) => {
      const ends = Date.now() + ms
      const show = () => (submitRetry.value = { inSeconds: Math.max(0, Math.ceil((ends - Date.now()) / 1000)), attempt, attempts: policy.attempts })
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

  function accepted(res) {
    persistence.finish()
    s.clock.pause()
    phase.value = 'submitted'
    message.value = null
    view.submitted?.(res)
    handOff(props)
  }

  /** Send the labels until accepted, refused, out of tries or unmounted. */
  async function send(labels) {
    for (let attempt = 1; !stopped; attempt++) {
      if (attempt > 1) message.value = { tone: 'info', text: `Submitting… (try ${attempt} of ${policy.attempts})` }
      let res
      try {
        // Save the newest draft first: a debounced save landing after the submission would be refused (409), and
        // if the submission fails the server still holds every label.
        await persistence.flush()
        res = await api.submit(labels, s.clock.ms)
      } catch (err) {
        // one request at a time; a repeat of a submission the server already recorded answers duplicate: true
        const delay = submitRetryDelay(err, attempt, policy)
        if (delay == null || stopped) {
          message.value = submitErrorMessage(err)
          return
        }
        message.value = retryingMessage(err)
        await waitToRetry(delay, attempt + 1)
        continue
      }
      accepted(res)
      return
    }
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
    try {
      await send(S.submitLabels(m, state))
    } finally {
      submitting.value = false
    }
  }

  return {
    submitRetry,
    submit,
    /** "Try again": send a waiting submission now, or start a new one after the tries ran out; never a second
     * request while one is on its way. */
    retrySubmit() {
      if (wakeRetry) wakeRetry()
      else if (!submitting.value) submit()
    },
    /** Back online: a waiting submission goes now. */
    wake: () => wakeRetry?.(),
    /** Unmounted: no more tries. */
    stop() {
      stopped = true
      wakeRetry?.()
    },
  }
}
