// Long lists render their first items first: the Start button (and the first label) do not wait for rows below
// the fold. The rest follows in small chunks when the page is idle (requestIdleCallback): each chunk is a short
// task, so a key pressed meanwhile is handled at once instead of waiting for the whole list.
import { onBeforeUnmount, onMounted, ref } from 'vue'

export const FIRST_ITEMS = 16
export const CHUNK = 12

const idle =
  typeof requestIdleCallback === 'function'
    ? { request: (cb) => requestIdleCallback(cb, { timeout: 500 }), cancel: (id) => cancelIdleCallback(id) }
    : { request: (cb) => setTimeout(cb, 16), cancel: (id) => clearTimeout(id) }

/** A function (items, cursorIndex) => the items to render now. Call in a component's setup. */
export function useProgressive(first = FIRST_ITEMS, chunk = CHUNK) {
  const limit = ref(first)
  let total = 0
  let pending = null
  let mounted = false
  function schedule() {
    if (mounted && pending === null && limit.value < total) pending = idle.request(grow)
  }
  function grow() {
    pending = null
    limit.value += chunk
    schedule()
  }
  onMounted(() => {
    mounted = true
    schedule()
  })
  onBeforeUnmount(() => {
    mounted = false
    if (pending !== null) idle.cancel(pending)
    pending = null
  })
  return (items, cursor = 0) => {
    total = items.length
    schedule() // a longer list in the same component (another response's step) keeps growing
    const n = Math.max(limit.value, cursor + first)
    return items.length <= n ? items : items.slice(0, n)
  }
}
