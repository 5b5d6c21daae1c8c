// Long lists render their first items first: the Start button (and the first label) do not wait for 60 rows
// below the fold. The rest follows when the page is idle (requestIdleCallback, so keys are handled first).
import { onBeforeUnmount, onMounted, ref } from 'vue'

export const FIRST_ITEMS = 16

/** A function (items, cursorIndex) => the items to render now. Call in a component's setup. */
export function useProgressive(first = FIRST_ITEMS) {
  const all = ref(false)
  let cancel = null
  onMounted(() => {
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(() => (all.value = true), { timeout: 400 })
      cancel = () => cancelIdleCallback(id)
    } else {
      const id = setTimeout(() => (all.value = true), 50)
      cancel = () => clearTimeout(id)
    }
  })
  onBeforeUnmount(() => cancel && cancel())
  return (items, cursor = 0) => (all.value || items.length <= first ? items : items.slice(0, Math.max(first, cursor + first)))
}
