// Drafts carry a version (issue 23 item 4): the element names the version it saw in every save and in the submit,
// and a stale tab's 409 stops its saves and is shown, never retried over the newer answers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError, createApi } from '../src/annotator/api.js'
import { createAutosave } from '../src/annotator/autosave.js'
import { submitErrorMessage } from '../src/annotator/submission.js'

const json = (body, status = 200) =>
  Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
const stale = { detail: 'x', errors: [{ field: 'draft_version', message: 'changed in another tab', current: 5 }] }

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('draft versions', () => {
  it('every save and the submit name the version the server last gave', async () => {
    const answers = [{ draft_version: 3 }, { saved_at: 't', draft_version: 4 }, { status: 'submitted' }]
    const fetchImpl = vi.fn(() => json(answers.shift()))
    const api = createApi({ token: 't', fetchImpl })
    await api.getUnit()
    await api.putDraft({ a: 1 })
    await api.submit({ spans: [] }, 10)
    const bodies = fetchImpl.mock.calls.slice(1).map(([, o]) => JSON.parse(o.body))
    expect(bodies[0]).toEqual({ draft: { a: 1 }, draft_version: 3 })
    expect(bodies[1]).toEqual({ labels: { spans: [] }, time_on_task_ms: 10, draft_version: 4 })
  })
  it("a stale tab's 409 stops its saves and says so; an already-submitted 409 stays 'closed'", async () => {
    const conflict = new ApiError(409, stale)
    const save = vi.fn().mockRejectedValue(conflict)
    const statuses = []
    const autosave = createAutosave({ save, delay: 10, onStatus: (s) => statuses.push(s) })
    autosave.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(20)
    expect(statuses.at(-1)).toBe('conflict')
    autosave.schedule({ n: 2 })
    await vi.advanceTimersByTimeAsync(5000)
    expect(save).toHaveBeenCalledTimes(1) // never written over the other tab's answers
    const submitted = createAutosave({ save: vi.fn().mockRejectedValue(new ApiError(409, { detail: 'already submitted' })), delay: 10 })
    submitted.schedule({ n: 1 })
    await vi.advanceTimersByTimeAsync(20)
    expect(submitted.status).toBe('closed')
  })
  it('a refused submit of a stale tab is explained', () => {
    expect(submitErrorMessage(new ApiError(409, stale)).text).toMatch(/another tab/)
  })
})
