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
