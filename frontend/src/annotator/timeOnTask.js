// Active time on task: counts while started and the page is visible.
export function createTimeOnTask(initialMs = 0, now = () => performance.now()) {
  let total = initialMs
  let since = null
  return {
    start() {
      if (since === null) since = now()
    },
    pause() {
      if (since !== null) {
        total += now() - since
        since = null
      }
    },
    get ms() {
      return Math.round(total + (since === null ? 0 : now() - since))
    },
  }
}
