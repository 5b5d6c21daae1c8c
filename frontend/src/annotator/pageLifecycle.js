// The controller's page lifecycle: keys go to the controller; a hidden page pauses the clock and sends the pending
// draft at once; leaving the page sends it too; coming back online retries what failed. Never lose work.

/**
 * `s`: the controller's session (controller.js); `on`: { key(event), online() }. Returns { attach(win, doc),
 * detach() }.
 */
export function createPageLifecycle(s, on) {
  const { persistence, state, phase } = s
  let detach = null
  function attach(win, doc) {
    const onVisibility = () => {
      if (doc.visibilityState === 'hidden') {
        s.clock.pause()
        persistence.flushOnExit()
      } else if (state.started && phase.value === 'ready') s.clock.start()
    }
    const onPageHide = () => persistence.flushOnExit()
    const onOnline = () => {
      persistence.retryNow()
      on.online()
    }
    win.addEventListener('keydown', on.key)
    doc.addEventListener('visibilitychange', onVisibility)
    win.addEventListener('pagehide', onPageHide)
    win.addEventListener('online', onOnline)
    detach = () => {
      win.removeEventListener('keydown', on.key)
      doc.removeEventListener('visibilitychange', onVisibility)
      win.removeEventListener('pagehide', onPageHide)
      win.removeEventListener('online', onOnline)
    }
  }
  return {
    attach,
    detach() {
      detach?.()
      detach = null
      persistence.flushOnExit()
      persistence.close()
    },
  }
}
