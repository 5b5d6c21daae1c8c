// An expert screen's decisions, saved one after another in key order (issue 23 item 4), shared by QA validation
// (views/Validate.vue) and fact validation (views/ValidateFacts.vue), which had each written it out.
// A fast expert is ahead of the server: each key is queued behind the previous one, so a quick correction ("x" then
// "v") ends as the last key; `pending` counts what is not answered yet (the page shows it, and `beforeUnload` asks
// before the page is left while any is); `undo` goes back from the decision last pressed for that item, whether or
// not the server has answered it. A decision the server refused is forgotten: the server's value stands.
import { ref } from 'vue'

/**
 * @param {object} options
 * @param {(item: any, decision: any) => Promise<any>} options.send saves one decision (throws when refused)
 * @param {(item: any) => any} options.valueOf the item's decision as the server last answered it
 * @param {(item: any) => any} [options.keyOf] the item's identity (its id)
 * @param {(item: any, decision: any, error: Error) => void} [options.onError] a refused decision
 * @param {() => void} [options.onIdle] everything pressed is answered
 */
export function useOrderedDecisions({ send, valueOf, keyOf = (item) => item.id, onError = () => {}, onIdle = () => {} }) {
  let queue = Promise.resolve()
  const pending = ref(0) // decisions pressed and not yet answered by the server
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
      .catch((error) => {
        pressed.delete(id) // the server's value stands; the next key starts from it
        onError(item, decision, error)
      })
      .finally(() => {
        pending.value -= 1
        bump(id, -1)
        if (pending.value === 0) onIdle()
      })
    return queue
  }

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

  /** A `beforeunload` listener: the browser asks before leaving while decisions are on their way. */
  function beforeUnload(event) {
    if (!pending.value) return undefined
    event.preventDefault()
    event.returnValue = ''
    return ''
  }

  const isSaving = (item) => savingIds.value.has(keyOf(item))
  return { pending, savingIds, submit, undo, forget, settled, beforeUnload, isSaving }
}
