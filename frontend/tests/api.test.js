import { describe, expect, it, vi } from 'vitest'
import { ApiError, createApi, postToMturk } from '../src/annotator/api.js'

const ok = (body) => Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }))

describe('api', () => {
  it('calls the three contract endpoints', async () => {
    const fetchImpl = vi.fn(() => ok({}))
    const api = createApi({ apiBase: 'https://x.test/', token: 'ab:c/d', fetchImpl })
    await api.getUnit()
    await api.putDraft({ a: 1 }, { keepalive: true })
    await api.submit({ spans: [] }, 1234.4)
    const [[u1, o1], [u2, o2], [u3, o3]] = fetchImpl.mock.calls
    expect(u1).toBe('https://x.test/api/work/ab%3Ac%2Fd/unit')
    expect(o1.method).toBe('GET')
    expect(u2).toBe('https://x.test/api/work/ab%3Ac%2Fd/draft')
    expect(o2).toMatchObject({ method: 'PUT', keepalive: true })
    expect(JSON.parse(o2.body)).toEqual({ draft: { a: 1 } })
    expect(u3).toBe('https://x.test/api/work/ab%3Ac%2Fd/submit')
    expect(JSON.parse(o3.body)).toEqual({ labels: { spans: [] }, time_on_task_ms: 1234 })
  })
  it('errors carry status and body', async () => {
    const fetchImpl = () => Promise.resolve(new Response(JSON.stringify({ errors: [{ field: 'labels', message: 'no' }] }), { status: 400 }))
    const err = await createApi({ token: 't', fetchImpl }).submit({}, 0).catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(400)
    expect(err.body.errors[0].field).toBe('labels')
  })
  it('MTurk: a real form POST with assignmentId and one more field', () => {
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => {})
    const form = postToMturk('https://workersandbox.mturk.com/mturk/externalSubmit', 'ASSIGN123')
    expect(form.method.toLowerCase()).toBe('post')
    expect(form.action).toBe('https://workersandbox.mturk.com/mturk/externalSubmit')
    const fields = Object.fromEntries([...form.querySelectorAll('input')].map((i) => [i.name, i.value]))
    expect(fields).toEqual({ assignmentId: 'ASSIGN123', factcrowd: 'submitted' })
    expect(form.isConnected).toBe(true)
    expect(submit).toHaveBeenCalledTimes(1)
    submit.mockRestore()
  })
})
