// The controller without the element: real state, real autosave and local backup, a fake backend.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { createController } from '../src/annotator/controller.js'
import { ApiError } from '../src/annotator/api.js'
import { embeddedUnit, loadErrorText } from '../src/annotator/loading.js'
import { writeBackup } from '../src/annotator/localBackup.js'
import { missingMessage, submitErrorMessage } from '../src/annotator/submission.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

let calls
let unit
let submitReply
let draftReply

function fakeFetch(url, init = {}) {
  const method = init.method || 'GET'
  calls.push({ url, method, body: init.body ? JSON.parse(init.body) : undefined, keepalive: !!init.keepalive })
  const json = (status, body) => Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
  if (url.endsWith('/unit')) return unit instanceof Error ? Promise.reject(unit) : json(...(Array.isArray(unit) ? unit : [200, unit]))
  if (url.endsWith('/draft')) return draftReply()
  if (url.endsWith('/submit')) return json(...submitReply)
  return json(404, {})
}

const controllers = []
function make(props = {}, view = {}, autosave = { delay: 5, retryDelays: [5] }) {
  const c = createController({ token: 'tok', apiBase: '', ...props }, view, { fetchImpl: fakeFetch, autosave })
  controllers.push(c)
  return c
}
async function loaded(props, view, autosave) {
  const c = make(props, view, autosave)
  c.mount(window, document)
  await flushPromises()
  return c
}
const key = async (k, extra = {}) => {
  window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...extra }))
  await flushPromises()
}
const wait = (ms) => new Promise((r) => setTimeout(r, ms))
const puts = () => calls.filter((x) => x.method === 'PUT')

beforeEach(() => {
  localStorage.clear()
  calls = []
  unit = sampleUnit()
  submitReply = [200, { status: 'submitted', duplicate: false }]
  draftReply = () => Promise.resolve(new Response('{"saved_at": "2026-11-30T00:00:00Z"}', { status: 200 }))
})
afterEach(() => {
  while (controllers.length) controllers.pop().unmount()
})

/** Label every missing item through the controller's own actions (choose). */
function labelAll(c) {
  for (let guard = 0; guard < 200 && c.progress.value.done < c.progress.value.total; guard++) {
    const { section, item } = c.state.cursor
    const kind = c.currentSection.value.kind
    c.choose(section, item, kind === 'pairwise' ? 3 : kind === 'fact' ? 'S' : true)
  }
}

describe('controller: loading', () => {
  it('loads the unit, lays out the plan and asks the view to focus Start', async () => {
    const focusStart = vi.fn()
    const c = await loaded({}, { focusStart })
    expect(c.phase.value).toBe('ready')
    expect(calls.map((x) => `${x.method} ${x.url}`)).toEqual(['GET /api/work/tok/unit'])
    expect(c.model.sections.map((s) => s.planKind)).toEqual(unit.plan.map((p) => p.kind))
    expect(c.progressText.value).toBe('Response A · Step 1 · 0 / 6 spans')
    expect(focusStart).toHaveBeenCalledTimes(1)
  })

  it('an embedded unit is applied at once, without a request; a malformed one is fetched instead', async () => {
    const c = make({}, { embeddedUnit: () => sampleUnit({ mode: 'validation' }) })
    expect(c.phase.value).toBe('ready') // before mount: the first render already has it
    c.mount(window, document)
    await flushPromises()
    expect(calls).toEqual([])
    expect(c.model.mode).toBe('validation')
    const broken = make({}, { embeddedUnit: () => ({ responses: [{ qas: 'not a list' }] }) })
    expect(broken.phase.value).toBe('loading')
  })

  it('a refused link and an unreachable server read differently', async () => {
    unit = [403, { detail: 'forbidden' }]
    const c = await loaded()
    expect(c.phase.value).toBe('error')
    expect(c.loadError.value).toMatch(/not valid/)
    expect(loadErrorText(new TypeError('Failed to fetch'))).toMatch(/Could not load/)
    unit = new TypeError('Failed to fetch')
    expect((await loaded()).loadError.value).toMatch(/Check your connection/)
  })

  it('embeddedUnit reads the page script only when it holds a unit', () => {
    document.body.innerHTML = '<script type="application/json" id="u">{"responses": []}</script><script type="application/json" id="x">{"a": 1}</script>'
    expect(embeddedUnit('u')).toEqual({ responses: [] })
    expect(embeddedUnit('x')).toBeNull()
    expect(embeddedUnit('missing')).toBeNull()
    expect(embeddedUnit('')).toBeNull()
    document.body.innerHTML = ''
  })
})

describe('controller: keys and actions', () => {
  it('Enter starts; label keys label and advance; u undoes; keys before Start or behind help do nothing', async () => {
    const focusWork = vi.fn()
    const c = await loaded({}, { focusWork })
    await key('c')
    expect(c.state.labels.spans).toEqual({})
    await key('Enter')
    expect(c.state.started).toBe(true)
    expect(focusWork).toHaveBeenCalled()
    await key('c')
    await key('n')
    const [s0, s1] = unit.responses[0].spans
    expect(c.state.labels.spans).toEqual({ [s0.id]: true, [s1.id]: false })
    expect(c.state.cursor).toEqual({ section: 0, item: 2 })
    await key('u')
    expect(c.state.labels.spans).toEqual({ [s0.id]: true })
    await key('?')
    expect(c.helpOpen.value).toBe(true)
    await key('c')
    expect(c.state.labels.spans).toEqual({ [s0.id]: true })
    await key('Escape')
    expect(c.helpOpen.value).toBe(false)
    await key(']')
    expect(c.currentSection.value.planKind).toBe('qa_support')
  })

  it('characters typed after e, before the editor has focus, go into the editor', async () => {
    unit = sampleUnit({ mode: 'factscore' })
    const c = await loaded()
    await key('Enter')
    for (const k of ['e', ' ', 'j', 's']) window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }))
    expect(c.editing.value).toBe(c.current.value.key)
    expect(c.editText.value).toBe('A man died from measles. js')
    expect(c.state.cursor.item).toBe(0) // j did not move
    c.editorFocused() // the editor took focus: keys are the input's own again
    expect(c.typeAhead('x')).toBe(false)
    c.itemOp('edit', c.editing.value, c.editText.value)
    c.stopEditing()
    expect(c.items(0)[0].text).toBe('A man died from measles. js')
    await key('s')
    expect(c.items(0)[0].label).toBe('S')
  })

  it('preview: nothing starts, nothing is labeled, nothing is saved', async () => {
    const c = await loaded({ preview: 'true' })
    expect(c.isPreview.value).toBe(true)
    await key('Enter')
    c.start()
    c.choose(0, 0, true)
    await c.submit()
    await wait(30)
    expect(c.state.started).toBe(false)
    expect(c.state.labels.spans).toEqual({})
    expect(calls.filter((x) => x.method !== 'GET')).toEqual([])
  })

  it('unmount removes the key listener and sends the pending draft with keepalive', async () => {
    const c = await loaded()
    await key('Enter')
    await key('c')
    controllers.pop().unmount()
    await key('n')
    expect(Object.values(c.state.labels.spans)).toEqual([true])
    expect(puts().at(-1)).toMatchObject({ keepalive: true })
    expect(puts().at(-1).body.draft.labels.spans).toEqual(c.state.labels.spans)
  })
})

describe('controller: persistence', () => {
  it('a hidden page sends the pending draft at once (keepalive); coming back online retries a failed save', async () => {
    const c = await loaded({}, {}, { delay: 5, retryDelays: [60000] }) // no retry but the one 'online' asks for
    await key('Enter')
    await key('c')
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
    document.dispatchEvent(new Event('visibilitychange'))
    delete document.visibilityState
    expect(puts()).toHaveLength(1)
    expect(puts()[0]).toMatchObject({ keepalive: true })

    draftReply = () => Promise.reject(new TypeError('Failed to fetch'))
    await key('n')
    await wait(20)
    expect(c.saveStatus.value).toBe('offline')
    draftReply = () => Promise.resolve(new Response('{}', { status: 200 }))
    const before = puts().length
    window.dispatchEvent(new Event('online'))
    await wait(20)
    expect(puts().length).toBeGreaterThan(before)
    expect(c.saveStatus.value).toBe('saved')
  })

  it('each change is saved as a draft; the local copy goes once the server has it', async () => {
    const c = await loaded()
    await key('Enter')
    await key('c')
    expect(localStorage.getItem('factcrowd:draft:tok')).not.toBeNull()
    await wait(30)
    expect(c.saveStatus.value).toBe('saved')
    expect(puts().at(-1).body.draft).toMatchObject({ version: 1, started: true, labels: { spans: { [unit.responses[0].spans[0].id]: true } } })
    expect(localStorage.getItem('factcrowd:draft:tok')).toBeNull()
  })

  it('offline: the local copy stays and wins on reload, and goes back to the server', async () => {
    draftReply = () => Promise.reject(new TypeError('Failed to fetch'))
    const c = await loaded()
    await key('Enter')
    await key('n')
    await wait(20)
    expect(c.saveStatus.value).toBe('offline')
    controllers.pop().unmount()

    draftReply = () => Promise.resolve(new Response('{}', { status: 200 }))
    calls = []
    const again = await loaded() // the server still has no draft
    expect(again.resumed.value).toBe(true)
    expect(again.state.started).toBe(false)
    expect(again.state.labels.spans).toEqual({ [unit.responses[0].spans[0].id]: false })
    await wait(30)
    expect(puts()).toHaveLength(1)
    expect(localStorage.length).toBe(0)
  })

  it('a submitted assignment shows as submitted and drops any local copy', async () => {
    writeBackup('tok', { version: 1, labels: {} })
    unit = { ...sampleUnit(), assignment: { id: 12, status: 'submitted', mode: 'qasem', preview: false } }
    const c = await loaded()
    expect(c.phase.value).toBe('submitted')
    expect(c.locked.value).toBe(true)
    expect(localStorage.length).toBe(0)
  })
})

describe('controller: submit', () => {
  it('incomplete: jumps to the first missing item and says how many are left', async () => {
    const c = await loaded()
    c.start()
    c.choose(0, 0, true)
    await c.submit()
    expect(c.state.cursor).toEqual({ section: 0, item: 1 })
    expect(c.message.value.text).toMatch(/^\d+ items still need a label\. Jumped to the first: Response A, step 1/)
    expect(calls.some((x) => x.url.endsWith('/submit'))).toBe(false)
  })

  it('complete: saves the newest draft, posts the labels, tells the view, then saves nothing more', async () => {
    const submitted = vi.fn()
    unit = sampleUnit({ rag: true })
    const c = await loaded({}, { submitted })
    c.start()
    labelAll(c)
    await flushPromises() // the draft of the last change is pending (debounced), not yet sent
    await c.submit()
    const post = calls.find((x) => x.url.endsWith('/submit'))
    expect(calls[calls.indexOf(post) - 1].method).toBe('PUT')
    expect(post.body.labels.pairwise).toEqual([{ aspect: 'faithfulness', score: 3 }, { aspect: 'relevance', score: 3 }])
    expect(post.body.labels.spans).toHaveLength(11)
    expect(c.phase.value).toBe('submitted')
    expect(submitted).toHaveBeenCalledWith({ status: 'submitted', duplicate: false })
    c.choose(0, 0, false)
    await wait(30)
    expect(calls.slice(calls.indexOf(post) + 1)).toEqual([])
  })

  it('refused: the server\'s field errors are listed and the work stays open', async () => {
    unit = sampleUnit({ mode: 'validation' })
    submitReply = [400, { errors: [{ field: 'labels.validation[0].valid', message: 'required' }] }]
    const c = await loaded()
    c.start()
    labelAll(c)
    await c.submit()
    expect(c.message.value).toEqual({ tone: 'warn', text: 'The server could not accept the labels:', items: ['labels.validation[0].valid: required'] })
    expect(c.phase.value).toBe('ready')
    expect(c.submitting.value).toBe(false)
  })

  it('messages for a refusal (403), no connection, and one or many missing items', () => {
    expect(submitErrorMessage(new ApiError(403, {})).text).toMatch(/can no longer be submitted/)
    expect(submitErrorMessage(new TypeError('Failed to fetch')).text).toMatch(/Your work is kept/)
    expect(submitErrorMessage(new ApiError(400, {})).text).toMatch(/Could not reach/) // no field errors to show
    expect(missingMessage([{ message: 'x' }]).text).toBe('1 item still needs a label. Jumped to the first: x.')
    expect(missingMessage([{ message: 'x' }, { message: 'y' }]).text).toBe('2 items still need a label. Jumped to the first: x.')
  })
})
