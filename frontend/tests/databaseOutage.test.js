// A 503 from the server (its database is briefly unavailable, code database_unavailable) loses nothing: the draft
// stays in the local copy and is sent again, and a failed submission says the work is kept.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError, createApi } from '../src/annotator/api.js'
import { readBackup } from '../src/annotator/localBackup.js'
import { createPersistence } from '../src/annotator/persistence.js'
import { submitErrorMessage } from '../src/annotator/submission.js'

const OUTAGE = { detail: 'the database is unavailable for a moment', code: 'database_unavailable' }

beforeEach(() => {
  vi.useFakeTimers()
  localStorage.clear()
})
afterEach(() => vi.useRealTimers())

function serverAnswering(replies) {
  const fetchImpl = vi.fn(async () => {
    const [status, body] = replies.length > 1 ? replies.shift() : replies[0]
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', 'Retry-After': '5' } })
  })
  return { api: createApi({ token: 'tok', fetchImpl }), fetchImpl }
}

describe('database outage (503)', () => {
  it('a draft answered 503 stays in the local copy and is sent again until the server has it', async () => {
    const { api, fetchImpl } = serverAnswering([[503, OUTAGE], [503, OUTAGE], [200, { saved_at: 'now' }]])
    const statuses = []
    const persistence = createPersistence({
      api, token: 'tok', onStatus: (s) => statuses.push(s), autosave: { delay: 10, retryDelays: [100, 200] },
    })
    persistence.record({ version: 1, labels: { spans: { 7: true } } })
    await vi.advanceTimersByTimeAsync(20)
    expect(statuses.at(-1)).toBe('offline')
    expect(readBackup('tok').draft).toMatchObject({ labels: { spans: { 7: true } } })
    await vi.advanceTimersByTimeAsync(400)
    expect(fetchImpl).toHaveBeenCalledTimes(3)
    expect(JSON.parse(fetchImpl.mock.calls[2][1].body).draft.labels.spans).toEqual({ 7: true })
    expect(statuses.at(-1)).toBe('saved')
    expect(readBackup('tok')).toBeNull()
  })

  it('a submission answered 503 says the server is briefly unavailable and the work is kept', async () => {
    const { api } = serverAnswering([[503, OUTAGE]])
    const err = await api.submit({ spans: {} }, 1000).catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(503)
    expect(err.body.code).toBe('database_unavailable')
    const message = submitErrorMessage(err)
    expect(message.text).toMatch(/briefly unavailable/)
    expect(message.text).toMatch(/Your work is kept/)
  })
})
