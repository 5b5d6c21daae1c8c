// useOrderedDecisions: the save-in-order queue QA validation and fact validation share (duplicates D5; issue 23 item 4).
import { describe, expect, it, vi } from 'vitest'
import { useOrderedDecisions } from '../src/dashboard/useOrderedDecisions.js'

// a server whose answers the test releases one by one; it records when each save started
function server({ refuse = () => false } = {}) {
  const started = []
  const held = []
  const send = vi.fn((item, decision) => {
    started.push([item.id, decision])
    return new Promise((resolve, reject) => held.push(() => {
      if (refuse(item, decision)) reject(new Error('refused'))
      else resolve((item.value = decision))
    }))
  })
  // answer every save, each once it has started, until nothing is pending
  const release = async (d) => {
    while (d.pending.value) {
      await new Promise((r) => setTimeout(r, 0))
      if (held.length) held.shift()()
    }
  }
  return { send, started, held, release }
}
const tick = () => new Promise((r) => setTimeout(r, 0))

describe('useOrderedDecisions', () => {
  it('sends one decision at a time, in key order, and counts what is pending', async () => {
    const s = server()
    const onIdle = vi.fn()
    const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value, onIdle })
    const a = { id: 1, value: 'unknown' }
    const b = { id: 2, value: 'unknown' }
    d.submit(a, 'invalid')
    d.submit(b, 'valid')
    d.submit(a, 'valid') // a quick correction
    await tick()
    expect(s.started).toEqual([[1, 'invalid']]) // the next waits for the answer
    expect(d.pending.value).toBe(3)
    expect(d.isSaving(a) && d.isSaving(b)).toBe(true)
    const event = new Event('beforeunload', { cancelable: true })
    d.beforeUnload(event)
    expect(event.defaultPrevented).toBe(true)
    await s.release(d)
    await d.settled()
    expect(s.started).toEqual([[1, 'invalid'], [2, 'valid'], [1, 'valid']])
    expect([a.value, b.value, d.pending.value, d.isSaving(a)]).toEqual(['valid', 'valid', 0, false])
    expect(onIdle).toHaveBeenCalledTimes(1)
    const later = new Event('beforeunload', { cancelable: true })
    d.beforeUnload(later)
    expect(later.defaultPrevented).toBe(false)
  })

  it('undoes the last key pressed, from the decision pressed before it even when unsaved', async () => {
    const s = server()
    const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value })
    const a = { id: 1, value: 'unknown' }
    d.submit(a, 'invalid')
    d.submit(a, 'valid')
    expect(d.undo()).toEqual({ item: a, decision: 'invalid' })
    expect(d.undo()).toEqual({ item: a, decision: 'unknown' })
    expect(d.undo()).toBe(null)
    await s.release(d)
    expect(s.started.map(([, v]) => v)).toEqual(['invalid', 'valid', 'invalid', 'unknown'])
    expect(a.value).toBe('unknown')
  })

  it('forgets a refused decision: the server value stands and the queue goes on', async () => {
    const s = server({ refuse: (_item, decision) => decision === 'invalid' })
    const onError = vi.fn()
    const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value, onError })
    const a = { id: 1, value: 'unknown' }
    const b = { id: 2, value: 'unknown' }
    d.submit(a, 'invalid')
    d.submit(b, 'valid')
    await s.release(d)
    await d.settled()
    expect(onError).toHaveBeenCalledWith(a, 'invalid', expect.any(Error))
    expect([a.value, b.value, d.pending.value]).toEqual(['unknown', 'valid', 0])
    d.submit(a, 'valid')
    expect(d.undo()).toEqual({ item: a, decision: 'unknown' }) // from the server's value, not the refused one
    d.forget()
    expect(d.undo()).toBe(null)
    await s.release(d)
  })
})

describe('useOrderedDecisions in an outage', () => {
  // a server that is unreachable (fetch's TypeError) or answers 503 until `up`, then saves
  function flaky(kind = 'network') {
    const state = { up: false, saved: [] }
    const send = vi.fn(async (item, decision) => {
      if (!state.up) {
        if (kind === 'network') throw new TypeError('Failed to fetch')
        throw Object.assign(new Error('Service Unavailable'), { status: 503 })
      }
      state.saved.push([item.id, decision])
      item.value = decision
    })
    return { state, send }
  }

  it('keeps a decision the server never answered, warns before leaving, and sends it again once back', async () => {
    const s = flaky()
    const onError = vi.fn()
    const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value, onError, retryFirstMs: 60000 })
    const a = { id: 1, value: 'unknown' }
    const b = { id: 2, value: 'unknown' }
    d.submit(a, 'valid')
    d.submit(b, 'invalid')
    await d.settled()
    expect([...d.unsaved.value.keys()]).toEqual([1, 2])
    expect(d.pending.value).toBe(0)
    expect(d.isUnsaved(a) && d.isUnsaved(b)).toBe(true)
    expect(onError).not.toHaveBeenCalled() // not refused: kept
    const event = new Event('beforeunload', { cancelable: true })
    d.beforeUnload(event)
    expect(event.defaultPrevented).toBe(true) // nothing pending, but unsaved work: the browser asks
    s.state.up = true
    window.dispatchEvent(new Event('online'))
    await tick()
    await d.settled()
    expect(s.state.saved).toEqual([[1, 'valid'], [2, 'invalid']])
    expect([a.value, b.value, d.unsaved.value.size]).toEqual(['valid', 'invalid', 0])
    const later = new Event('beforeunload', { cancelable: true })
    d.beforeUnload(later)
    expect(later.defaultPrevented).toBe(false)
    d.dispose()
  })

  it('retries on its own with backoff after a 503, and only the last key for an item', async () => {
    vi.useFakeTimers()
    try {
      const s = flaky('503')
      const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value, retryFirstMs: 1000 })
      const a = { id: 1, value: 'unknown' }
      d.submit(a, 'invalid')
      d.submit(a, 'valid') // corrected during the outage: only this one is sent again
      await vi.advanceTimersByTimeAsync(0)
      expect([...d.unsaved.value.values()].map((e) => e.decision)).toEqual(['valid'])
      s.state.up = true
      await vi.advanceTimersByTimeAsync(1000)
      await d.settled()
      expect(s.state.saved).toEqual([[1, 'valid']])
      expect(d.unsaved.value.size).toBe(0)
      d.dispose()
    } finally {
      vi.useRealTimers()
    }
  })

  it('a later decision that reaches the server clears the item; a 4xx is still a refusal', async () => {
    const s = flaky()
    const onError = vi.fn()
    const d = useOrderedDecisions({ send: s.send, valueOf: (i) => i.value, onError, retryFirstMs: 60000 })
    const a = { id: 1, value: 'unknown' }
    d.submit(a, 'invalid')
    await d.settled()
    expect(d.isUnsaved(a)).toBe(true)
    s.state.up = true
    d.submit(a, 'valid')
    await d.settled()
    expect([a.value, d.isUnsaved(a)]).toEqual(['valid', false])
    const refusing = useOrderedDecisions({
      send: async () => { throw Object.assign(new Error('bad'), { status: 400 }) },
      valueOf: (i) => i.value, onError,
    })
    refusing.submit(a, 'invalid')
    await refusing.settled()
    expect([refusing.unsaved.value.size, onError.mock.calls.length]).toEqual([0, 1])
    d.dispose()
    refusing.dispose()
  })
})
