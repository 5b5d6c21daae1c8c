// A submission that fails for a passing reason (503 database_unavailable, 429, no connection) is sent again on its
// own, after the server's Retry-After or a growing backoff, a bounded number of times, one request at a time; a
// refusal (400, 403) is not. The server records a submission once per assignment (a repeat answers duplicate: true,
// tests/work), so a retry after a lost answer is safe. Real controller, autosave and local backup; a fake backend.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { ApiError, parseRetryAfter } from '../src/annotator/api.js'
import { createController } from '../src/annotator/controller.js'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import { SUBMIT_RETRY, submitErrorMessage, submitRetryDelay } from '../src/annotator/submission.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

const OUTAGE = { detail: 'the database is unavailable for a moment', code: 'database_unavailable' }
const OK = [200, { status: 'submitted', duplicate: false }]

let calls
let submitReplies // what each POST /submit gets, in order; the last one repeats

function reply([status, body, headers = {}]) {
  if (status === 'offline') return Promise.reject(new TypeError('Failed to fetch'))
  return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } }))
}
function fakeFetch(url, init = {}) {
  const method = init.method || 'GET'
  calls.push({ url, method, at: Date.now() })
  if (url.endsWith('/unit')) return reply([200, sampleUnit({ mode: 'validation' })])
  if (url.endsWith('/draft')) return reply([200, { saved_at: '2026-11-30T00:00:00Z' }])
  if (url.endsWith('/submit')) return reply(submitReplies.length > 1 ? submitReplies.shift() : submitReplies[0])
  return reply([404, {}])
}
const posts = () => calls.filter((x) => x.url.endsWith('/submit'))

beforeEach(() => {
  // setImmediate stays real: flushPromises (and Response bodies) use it
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
  localStorage.clear()
  calls = []
  submitReplies = [OK]
})
const cleanups = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()()
  vi.useRealTimers()
  vi.unstubAllGlobals()
  document.body.innerHTML = ''
})

async function ready(options = {}) {
  const c = createController({ token: 'tok', apiBase: '' }, {}, { fetchImpl: fakeFetch, autosave: { delay: 5, retryDelays: [5] }, ...options })
  cleanups.push(() => c.unmount())
  c.mount(window, document)
  await flushPromises()
  c.start()
  for (let guard = 0; guard < 100 && c.progress.value.done < c.progress.value.total; guard++) {
    c.choose(c.state.cursor.section, c.state.cursor.item, true)
  }
  return c
}
/** Start a submission and let its first request end. */
async function submitting(c) {
  const done = c.submit()
  await vi.advanceTimersByTimeAsync(0)
  return done
}

describe('submit retries a passing failure', () => {
  it('503 with Retry-After: waits what the server asks, counts down, then the next try is recorded', async () => {
    submitReplies = [[503, OUTAGE, { 'Retry-After': '5' }], [503, OUTAGE, { 'Retry-After': '5' }], OK]
    const c = await ready()
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(0)
    expect(posts()).toHaveLength(1)
    expect(c.message.value).toMatchObject({ tone: 'info', retry: true })
    expect(c.message.value.text).toMatch(/^Saving… The server is briefly unavailable\. Your work is kept/)
    expect(c.submitRetry.value).toEqual({ inSeconds: 5, attempt: 2, attempts: SUBMIT_RETRY.attempts })
    expect(c.submitting.value).toBe(true) // labels stay locked and Submit stays disabled while it waits
    await vi.advanceTimersByTimeAsync(1000)
    expect(c.submitRetry.value.inSeconds).toBe(4)
    await vi.advanceTimersByTimeAsync(3900)
    expect(posts()).toHaveLength(1) // not before the server's Retry-After
    await vi.advanceTimersByTimeAsync(100)
    expect(posts()).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(5000)
    await done
    expect(posts()).toHaveLength(3)
    expect(posts()[2].at - posts()[1].at).toBe(5000)
    expect(c.phase.value).toBe('submitted')
    expect(c.message.value).toBeNull()
    expect(c.submitRetry.value).toBeNull()
  })

  it('no connection: tries again with a growing backoff; the answer after a lost one is a duplicate, and accepted', async () => {
    submitReplies = [['offline'], ['offline'], [200, { status: 'submitted', duplicate: true }]]
    const submitted = vi.fn()
    const c = createController({ token: 'tok' }, { submitted }, { fetchImpl: fakeFetch, autosave: { delay: 5, retryDelays: [5] } })
    cleanups.push(() => c.unmount())
    c.mount(window, document)
    await flushPromises()
    c.start()
    for (let g = 0; g < 100 && c.progress.value.done < c.progress.value.total; g++) c.choose(c.state.cursor.section, c.state.cursor.item, true)
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(0)
    expect(c.message.value.text).toMatch(/Could not reach the server/)
    await vi.advanceTimersByTimeAsync(60000)
    await done
    const [first, second, third] = posts()
    expect(second.at - first.at).toBe(SUBMIT_RETRY.baseDelayMs)
    expect(third.at - second.at).toBe(2 * SUBMIT_RETRY.baseDelayMs)
    expect(posts()).toHaveLength(3)
    expect(c.phase.value).toBe('submitted')
    expect(submitted).toHaveBeenCalledWith({ status: 'submitted', duplicate: true })
  })

  it('429 is tried again after its Retry-After', async () => {
    submitReplies = [[429, { detail: 'slow down' }, { 'Retry-After': '7' }], OK]
    const c = await ready()
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(6999)
    expect(posts()).toHaveLength(1)
    expect(c.message.value.text).toMatch(/The server is busy/)
    await vi.advanceTimersByTimeAsync(1)
    await done
    expect(posts()).toHaveLength(2)
    expect(c.phase.value).toBe('submitted')
  })

  it.each([
    [400, { errors: [{ field: 'labels.validation[0].valid', message: 'required' }] }],
    [403, { detail: 'this assignment has expired' }],
    [404, {}],
    [500, {}],
  ])('%i is not tried again', async (status, body) => {
    submitReplies = [[status, body, { 'Retry-After': '1' }]]
    const c = await ready()
    await submitting(c)
    await vi.advanceTimersByTimeAsync(120000)
    expect(posts()).toHaveLength(1)
    expect(c.submitting.value).toBe(false)
    expect(c.submitRetry.value).toBeNull()
    expect(c.phase.value).toBe('ready')
    expect(c.message.value.tone).toBe('warn')
    expect(c.message.value.retry).toBeFalsy()
  })

  it('gives up after the set number of tries, says the work is kept and offers Try again', async () => {
    submitReplies = [[503, OUTAGE, { 'Retry-After': '5' }]]
    const c = await ready()
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(120000)
    await done
    expect(posts()).toHaveLength(SUBMIT_RETRY.attempts)
    const gaps = posts().slice(1).map((p, i) => p.at - posts()[i].at)
    // the server's 5 s, then the backoff once it is longer: 2 s, 4 s, 8 s, 16 s (never beyond maxDelayMs)
    expect(gaps).toEqual([5000, 5000, 8000, 16000])
    expect(gaps.reduce((a, b) => a + b)).toBeLessThanOrEqual(60000)
    expect(c.submitting.value).toBe(false)
    expect(c.phase.value).toBe('ready')
    expect(c.message.value).toMatchObject({ tone: 'warn', retry: true })
    expect(c.message.value.text).toMatch(/Your work is kept/)
    submitReplies = [OK]
    c.retrySubmit()
    await vi.advanceTimersByTimeAsync(0)
    expect(posts()).toHaveLength(SUBMIT_RETRY.attempts + 1)
    expect(c.phase.value).toBe('submitted')
  })

  it('Try again sends at once while waiting, and never a second request while one is on its way', async () => {
    submitReplies = [[503, OUTAGE, { 'Retry-After': '20' }], OK]
    const c = await ready()
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(0)
    expect(c.submitRetry.value.inSeconds).toBe(20)
    c.retrySubmit()
    c.retrySubmit() // the first one is on its way
    await c.submit() // so is Ctrl+Enter: it does nothing
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(posts()).toHaveLength(2)
    expect(posts()[1].at - posts()[0].at).toBe(0)
    expect(c.phase.value).toBe('submitted')
    await vi.advanceTimersByTimeAsync(60000)
    expect(posts()).toHaveLength(2) // the countdown it cut short sends nothing later
  })

  it('coming back online sends a waiting submission at once', async () => {
    submitReplies = [['offline'], OK]
    const c = await ready({ submitRetry: { baseDelayMs: 30000 } })
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(1000)
    expect(posts()).toHaveLength(1)
    window.dispatchEvent(new Event('online'))
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(posts()).toHaveLength(2)
    expect(c.phase.value).toBe('submitted')
  })

  it('leaving the page stops the tries', async () => {
    submitReplies = [[503, OUTAGE, { 'Retry-After': '5' }]]
    const c = await ready()
    const done = submitting(c)
    await vi.advanceTimersByTimeAsync(1000)
    c.unmount()
    await vi.advanceTimersByTimeAsync(120000)
    await done
    expect(posts()).toHaveLength(1)
  })
})

describe('the retry policy and Retry-After', () => {
  it('reads delay-seconds and HTTP dates; anything else is no header', () => {
    const now = Date.parse('2026-12-01T10:00:00Z')
    expect(parseRetryAfter('5', now)).toBe(5000)
    expect(parseRetryAfter(' 0 ', now)).toBe(0)
    expect(parseRetryAfter('Tue, 01 Dec 2026 10:00:09 GMT', now)).toBe(9000)
    expect(parseRetryAfter('Tue, 01 Dec 2026 09:00:00 GMT', now)).toBe(0) // already passed
    expect(parseRetryAfter(null, now)).toBeNull()
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter('-3', now)).toBeNull()
  })

  it('a wait is the longer of Retry-After and the backoff, capped; none after the last try or for a refusal', () => {
    const policy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 10000 }
    const busy = new ApiError(503, OUTAGE, undefined, { retryAfterMs: 3000 })
    expect([1, 2, 3].map((n) => submitRetryDelay(busy, n, policy))).toEqual([3000, 3000, 4000])
    expect(submitRetryDelay(busy, 4, policy)).toBeNull()
    expect(submitRetryDelay(new ApiError(429, {}, undefined, { retryAfterMs: 3600000 }), 1, policy)).toBe(10000)
    expect(submitRetryDelay(new TypeError('Failed to fetch'), 1, policy)).toBe(1000)
    expect(submitRetryDelay(new ApiError(409, {}), 1, policy)).toBeNull()
    expect(submitErrorMessage(new ApiError(429, {})).retry).toBe(true)
  })
})

describe('<factcrowd-annotator> while a submission waits', () => {
  it('shows "Saving… retrying in N s" and a Try again button that sends it now', async () => {
    submitReplies = [[503, OUTAGE, { 'Retry-After': '9' }], OK]
    vi.stubGlobal('fetch', vi.fn(fakeFetch))
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok' }, attachTo: document.body })
    cleanups.push(() => w.unmount())
    await flushPromises()
    w.get('[data-testid="start-button"]').trigger('click')
    await flushPromises()
    for (let g = 0; g < 20; g++) {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'v', bubbles: true, cancelable: true }))
      await flushPromises()
    }
    await w.get('[data-testid="submit-button"]').trigger('click')
    await vi.advanceTimersByTimeAsync(0)
    await flushPromises()
    expect(posts()).toHaveLength(1)
    const msg = w.get('[data-testid="submit-message"]')
    expect(msg.text()).toMatch(/Saving… The server is briefly unavailable/)
    expect(w.get('[data-testid="submit-retry-countdown"]').text()).toMatch(/Retrying in 9 s \(try 2 of 5\)/)
    expect(w.get('[data-testid="submit-button"]').attributes('disabled')).toBeDefined()
    await vi.advanceTimersByTimeAsync(2000)
    expect(w.get('[data-testid="submit-retry-countdown"]').text()).toMatch(/Retrying in 7 s/)
    await w.get('[data-testid="submit-retry-button"]').trigger('click')
    await vi.advanceTimersByTimeAsync(0)
    await flushPromises()
    expect(posts()).toHaveLength(2)
    expect(w.find('[data-testid="submitted-message"]').exists()).toBe(true)
    expect(w.find('[data-testid="submit-retry-button"]').exists()).toBe(false)
  })
})
