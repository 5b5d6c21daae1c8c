// Server-side drafts: debounced PUT of the latest draft, one request at a time, retry with backoff when offline,
// and a keepalive flush when the page is hidden or closed.
// Status: 'idle' | 'saving' | 'saved' | 'offline' | 'closed' (409: already submitted) | 'conflict' (409: another tab
// or window saved this assignment since this page loaded; nothing more is saved from here, the page says reload).

export function createAutosave({
  save, // (draft, { keepalive }) => Promise
  delay = 300,
  retryDelays = [1000, 2000, 5000, 10000, 30000],
  onStatus = () => {},
  timers = { set: (f, ms) => setTimeout(f, ms), clear: (t) => clearTimeout(t) },
} = {}) {
  let pending = null // the latest draft not yet saved
  let timer = null
  let inFlight = null
  let failures = 0
  let status = 'idle'
  let closed = false

  const setStatus = (s) => {
    if (s !== status) {
      status = s
      onStatus(s)
    }
  }

  function arm(ms) {
    if (timer) timers.clear(timer)
    timer = timers.set(() => {
      timer = null
      send()
    }, ms)
  }

  async function send() {
    if (closed || pending === null) return
    if (inFlight) return // the running request sends the newest draft when it ends
    const draft = pending
    pending = null
    setStatus('saving')
    inFlight = Promise.resolve().then(() => save(draft, { keepalive: false }))
    try {
      await inFlight
      failures = 0
      inFlight = null
      if (pending !== null) send()
      else setStatus('saved')
    } catch (err) {
      inFlight = null
      if (err && err.status === 409) {
        closed = true
        pending = null
        setStatus(err.body?.errors?.[0]?.field === 'draft_version' ? 'conflict' : 'closed')
        return
      }
      if (pending === null) pending = draft
      setStatus('offline')
      arm(retryDelays[Math.min(failures, retryDelays.length - 1)])
      failures++
    }
  }

  return {
    /** A change happened: save this draft soon. */
    schedule(draft) {
      if (closed) return
      pending = draft
      if (status !== 'offline') setStatus('saving')
      arm(failures ? retryDelays[Math.min(failures - 1, retryDelays.length - 1)] : delay)
    },
    /** Send now (e.g. before submit); resolves when saved or failed. */
    async flush() {
      if (timer) {
        timers.clear(timer)
        timer = null
      }
      if (inFlight) await inFlight.catch(() => {})
      await send()
    },
    /** Page is going away: send the pending draft with fetch keepalive, without waiting. */
    flushOnExit() {
      if (closed || pending === null) return
      if (timer) {
        timers.clear(timer)
        timer = null
      }
      const draft = pending
      pending = null
      // started synchronously: during pagehide there is no later tick
      let request
      try {
        request = Promise.resolve(save(draft, { keepalive: true }))
      } catch (err) {
        request = Promise.reject(err)
      }
      request.then(
        () => setStatus('saved'),
        () => {
          if (pending === null) pending = draft
        },
      )
    },
    /** Retry at once (the browser came back online). */
    retryNow() {
      if (status === 'offline' && pending !== null) {
        failures = 0
        arm(0)
      }
    },
    /** Stop saving (after submit). */
    close() {
      closed = true
      pending = null
      if (timer) timers.clear(timer)
      timer = null
    },
    get status() {
      return status
    },
    get hasPending() {
      return pending !== null || !!inFlight
    },
  }
}
