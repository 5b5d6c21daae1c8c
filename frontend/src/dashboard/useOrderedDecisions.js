// An expert screen's decisions, saved one after another in key order (issue 23 item 4), shared by QA validation
// (views/Validate.vue) and fact validation (views/ValidateFacts.vue), which had each written it out.
// A fast expert is ahead of the server: each key is queued behind the previous one, so a quick correction ("x" then
// "v") ends as the last key; `pending` counts what is not answered yet (the page shows it, and `beforeUnload` asks
// before the page is left while any is); `undo` goes back from the decision last pressed for that item, whether or
// not the server has answered it. A decision the server refused (a 4xx) is forgotten: the server's value stands.
// A decision the server never answered (offline, a 5xx, 429) is kept in `unsaved` and sent again, with backoff and at
// once when the browser is back online: an outage used to drop it silently under "All decisions saved".
import { getCurrentInstance, onBeforeUnmount, ref } from 'vue'

/** Whether a failed save may succeed if sent again: the network failed (fetch's TypeError) or the server could not
 * answer (5xx, 408, 429); a 4xx is the server's refusal of the decision itself. */
export function isTransient(error) {
  if (error instanceof TypeError) return true
  const status = Number(error?.status)
  return status >= 500 || status === 408 || status === 429
}

/** What an expert screen says while `n` decisions wait for the server to be reachable again. */
export function unsavedMessage(n) {
  return `${n} decision${n === 1 ? '' : 's'} not saved: the server cannot be reached; trying again (do not close the page)`
}

const RETRY_FIRST_MS = 2000
const RETRY_MAX_MS = 30000

/**
 * @param {object} options
 * @param {(item: any, decision: any) => Promise<any>} options.send saves one decision (throws when refused)
 * @param {(item: any) => any} options.valueOf the item's decision as the server last answered it
 * @param {(item: any) => any} [options.keyOf] the item's identity (its id)
 * @param {(item: any, decision: any, error: Error) => void} [options.onError] a refused decision
 * @param {() => void} [options.onIdle] everything pressed is answered
 */
export function useOrderedDecisions({ send, valueOf, keyOf = (item) => item.id, onError = () => {}, onIdle = () => {},
  retryFirstMs = RETRY_FIRST_MS }) {
  let queue = Promise.resolve()
  const pending = ref(0) // decisions pressed and not yet answered by the server
  const unsaved = ref(new Map()) // item key -> { item, decision, error }: not answered (outage), to be sent again
  let retryTimer = null
  let retryDelay = retryFirstMs
  const savingIds = ref(new Map()) // item key -> its decisions not yet answered (a row shows it is saving)
  const pressed = new Map() // item key -> its decision as last pressed (saved or not)
  const history = [] // what each key replaced, in key order

  function bump(id, delta) {
    const next = new Map(savingIds.value)
    const n = (next.get(id) || 0) + delta
    if (n > 0) next.set(id, n)
    else next.delete(id)
    savingIds.value = next
  }

  /** Queue `decision` for `item` behind every earlier one; `record: false` keeps it off the undo history. */
  function submit(item, decision, { record = true } = {}) {
    const id = keyOf(item)
    if (record) history.push({ item, decision: pressed.has(id) ? pressed.get(id) : valueOf(item) })
    pressed.set(id, decision)
    pending.value += 1
    bump(id, 1)
    queue = queue
      .then(() => send(item, decision))
      .then(() => {
        if (unsaved.value.has(id)) setUnsaved(id, null) // a later decision for the item reached the server
        retryDelay = retryFirstMs
      })
      .catch((error) => {
        if (isTransient(error)) {
          // never answered: kept (pressed stands) and sent again, unless a newer key for the item is queued
          if (pressed.get(id) === decision) setUnsaved(id, { item, decision, error })
          scheduleRetry()
          return
        }
        pressed.delete(id) // the server's value stands; the next key starts from it
        if (unsaved.value.has(id)) setUnsaved(id, null)
        onError(item, decision, error)
      })
      .finally(() => {
        pending.value -= 1
        bump(id, -1)
        if (pending.value === 0) onIdle()
      })
    return queue
  }

  function setUnsaved(id, entry) {
    const next = new Map(unsaved.value)
    if (entry) next.set(id, entry)
    else next.delete(id)
    unsaved.value = next
  }

  function scheduleRetry() {
    if (retryTimer !== null) return
    retryTimer = setTimeout(() => {
      retryTimer = null
      retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS)
      retry()
    }, retryDelay)
  }

  /** Send every unsaved decision again (each still the item's last key), in the order they were pressed. */
  function retry() {
    if (retryTimer !== null) {
      clearTimeout(retryTimer)
      retryTimer = null
    }
    const entries = [...unsaved.value.entries()]
    unsaved.value = new Map()
    for (const [id, { item, decision }] of entries) {
      if (pressed.get(id) === decision) submit(item, decision, { record: false })
    }
    return queue
  }

  function onOnline() {
    retryDelay = retryFirstMs
    if (unsaved.value.size) retry()
  }

  function dispose() {
    if (retryTimer !== null) clearTimeout(retryTimer)
    retryTimer = null
    if (typeof window !== 'undefined') window.removeEventListener('online', onOnline)
  }

  if (typeof window !== 'undefined') window.addEventListener('online', onOnline)
  if (getCurrentInstance()) onBeforeUnmount(dispose)

  /** Undo the last key pressed: its item gets back what that key replaced. Answers the entry ({ item, decision }). */
  function undo() {
    const last = history.pop()
    if (!last) return null
    submit(last.item, last.decision, { record: false })
    return last
  }

  /** A bulk decision or a reload replaced what was pressed: nothing to undo, values from the server again. */
  function forget() {
    history.length = 0
    pressed.clear()
  }

  /** Resolves once every decision pressed so far is answered. */
  function settled() {
    return queue
  }

  /** A `beforeunload` listener: the browser asks before leaving while decisions are on their way or unsaved. */
  function beforeUnload(event) {
    if (!pending.value && !unsaved.value.size) return undefined
    event.preventDefault()
    event.returnValue = ''
    return ''
  }

  const isSaving = (item) => savingIds.value.has(keyOf(item))
  const isUnsaved = (item) => unsaved.value.has(keyOf(item))
  return { pending, savingIds, unsaved, submit, undo, forget, settled, beforeUnload, isSaving, isUnsaved, retry, dispose }
}
