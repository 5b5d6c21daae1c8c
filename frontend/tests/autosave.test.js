import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAutosave } from '../src/annotator/autosave.js'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

function harness(save) {
  const statuses = []
  const autosave = createAutosave({ save, delay: 300, retryDelays: [1000, 5000], onStatus: (s) => statuses.push(s) })
  return { autosave, statuses }
}

describe('autosave', () => {
  it('debounces: many changes in 300 ms are one PUT of the latest draft', async () => {
    const save = vi.fn().mockResolvedValue({ saved_at: 'x' })
    const { autosave, statuses } = harness(save)
    autosave.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(200)
    autosave.schedule({ n: 2 })
    await vi.advanceTimersByTimeAsync(200)
    expect(save).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(150)
    expect(save).toHaveBeenCalledTimes(1)
    expect(save).toHaveBeenCalledWith({ n: 2 }, { keepalive: false })
    expect(statuses).toEqual(['saving', 'saved'])
  })
  it('offline: says so, retries with backoff, and keeps the newest draft', async () => {
    const save = vi.fn().mockRejectedValueOnce(new TypeError('Failed to fetch')).mockResolvedValue({})
    const { autosave, statuses } = harness(save)
    autosave.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(300)
    expect(autosave.status).toBe('offline')
    autosave.schedule({ n: 2 })
    await vi.advanceTimersByTimeAsync(999)
    expect(save).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(2)
    expect(save).toHaveBeenCalledTimes(2)
    expect(save.mock.calls[1][0]).toEqual({ n: 2 })
    expect(statuses.at(-1)).toBe('saved')
  })
  it('one request at a time; a change during a request is sent after it', async () => {
    let release
    const save = vi.fn().mockImplementationOnce(() => new Promise((r) => (release = r))).mockResolvedValue({})
    const { autosave } = harness(save)
    autosave.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(300)
    autosave.schedule({ n: 2 })
    await vi.advanceTimersByTimeAsync(300)
    expect(save).toHaveBeenCalledTimes(1)
    release({})
    await vi.advanceTimersByTimeAsync(0)
    expect(save).toHaveBeenCalledTimes(2)
    expect(save.mock.calls[1][0]).toEqual({ n: 2 })
  })
  it('flushOnExit sends the pending draft at once with keepalive', async () => {
    const save = vi.fn().mockResolvedValue({})
    const { autosave } = harness(save)
    autosave.schedule({ n: 7 })
    autosave.flushOnExit()
    await vi.advanceTimersByTimeAsync(0)
    expect(save).toHaveBeenCalledWith({ n: 7 }, { keepalive: true })
    await vi.advanceTimersByTimeAsync(1000)
    expect(save).toHaveBeenCalledTimes(1) // not sent twice
    autosave.flushOnExit() // nothing pending: nothing sent
    expect(save).toHaveBeenCalledTimes(1)
  })
  it('409 (already submitted) stops saving', async () => {
    const save = vi.fn().mockRejectedValue(Object.assign(new Error('conflict'), { status: 409 }))
    const { autosave } = harness(save)
    autosave.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(300)
    expect(autosave.status).toBe('closed')
    autosave.schedule({ n: 2 })
    await vi.advanceTimersByTimeAsync(10000)
    expect(save).toHaveBeenCalledTimes(1)
  })
})
