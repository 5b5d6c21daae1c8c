import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import { sampleUnit } from '../src/demo/sampleUnit.js'

let calls
let unit
let submitReply

function fakeFetch(url, init = {}) {
  const method = init.method || 'GET'
  calls.push({ url, method, body: init.body ? JSON.parse(init.body) : undefined, keepalive: init.keepalive })
  const json = (status, body) => Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
  if (url.endsWith('/unit')) return json(200, unit)
  if (url.endsWith('/draft') && failDrafts) return Promise.reject(new TypeError('Failed to fetch'))
  if (url.endsWith('/draft')) return json(200, { saved_at: '2026-11-30T00:00:00Z' })
  if (url.endsWith('/submit')) return json(...submitReply)
  return json(404, {})
}

let failDrafts
beforeEach(() => {
  failDrafts = false
  localStorage.clear()
  calls = []
  unit = sampleUnit()
  submitReply = [200, { status: 'submitted', duplicate: false }]
  vi.stubGlobal('fetch', vi.fn(fakeFetch))
})
const mounted = []
afterEach(() => {
  while (mounted.length) mounted.pop().unmount()
  vi.unstubAllGlobals()
  document.body.innerHTML = ''
})

async function mountAnnotator(props = {}) {
  const wrapper = mount(FactcrowdAnnotator, { props: { token: 'tok', ...props }, attachTo: document.body })
  mounted.push(wrapper)
  await flushPromises()
  return wrapper
}
async function press(key, extra = {}) {
  window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...extra }))
  await flushPromises()
}
const byTestId = (w, id) => w.findAll(`[data-testid="${id}"]`)
const wait = (ms) => new Promise((r) => setTimeout(r, ms))

describe('<factcrowd-annotator> component', () => {
  it('starts with a focused Start button; keys label and advance; progress follows', async () => {
    const w = await mountAnnotator()
    const start = w.get('[data-testid="start-button"]')
    expect(document.activeElement).toBe(start.element)
    await press('c') // not started yet: ignored
    expect(w.get('[data-testid="progress"]').text()).toBe('Response A · Step 1 · 0 / 6 spans')
    await press('Enter')
    expect(byTestId(w, 'start-button')).toHaveLength(0)
    await press('c')
    await press('n')
    const spans = byTestId(w, 'span-item')
    expect(spans[0].attributes('data-label')).toBe('true')
    expect(spans[1].attributes('data-label')).toBe('false')
    expect(spans[2].attributes('data-current')).toBe('true')
    expect(w.get('[data-testid="progress"]').text()).toBe('Response A · Step 1 · 2 / 6 spans')
    await press('u')
    expect(byTestId(w, 'span-item')[1].attributes('data-label')).toBe('')
    expect(byTestId(w, 'span-item')[1].attributes('data-current')).toBe('true')
  })

  it('step 2 shows QAs of an uncovered span as not supported and does not ask them', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    await press('c')
    await press('n') // "from measles": not covered
    await w.get('[data-testid="step-tab"][data-section-index="1"]').trigger('click')
    const qas = byTestId(w, 'qa-item')
    const derived = qas.filter((q) => q.attributes('data-derived') === 'true')
    expect(derived).toHaveLength(1)
    expect(derived[0].text()).toContain('How did someone die?')
    expect(derived[0].text()).toContain('Not supported')
    expect(derived[0].find('[data-testid="label-supported"]').exists()).toBe(false)
    expect(w.get('[data-testid="progress"]').text()).toBe('Response A · Step 2 · 0 / 5 QAs')
    await press('s') // QA 1
    await press('s') // skips the derived QA
    expect(byTestId(w, 'qa-item')[2].attributes('data-label')).toBe('true')
    expect(byTestId(w, 'qa-item')[1].attributes('data-label')).toBe('false')
  })

  it('e opens the note of the current QA; typing there does not label', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    await w.get('[data-testid="step-tab"][data-section-index="1"]').trigger('click')
    await press('e')
    const note = w.get('[data-testid="qa-note"]')
    expect(document.activeElement).toBe(note.element)
    note.element.dispatchEvent(new KeyboardEvent('keydown', { key: 's', bubbles: true, composed: true }))
    note.element.value = 'paraphrase'
    await note.trigger('input')
    await flushPromises()
    expect(byTestId(w, 'qa-item')[0].attributes('data-label')).toBe('')
    await note.trigger('keydown', { key: 'Enter' })
    await press('s')
    expect(byTestId(w, 'qa-item')[0].attributes('data-label')).toBe('true')
    expect(w.get('[data-testid="qa-note"]').element.value).toBe('paraphrase')
  })

  it('autosaves a draft (debounced) and restores it on reload', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    await press('c')
    await press('c')
    await wait(450)
    const puts = calls.filter((c) => c.method === 'PUT')
    expect(puts).toHaveLength(1)
    expect(w.get('[data-testid="save-indicator"]').attributes('data-status')).toBe('saved')
    expect(w.get('[data-testid="save-indicator"]').text()).toBe('Saved')
    const draft = puts[0].body.draft
    mounted.pop().unmount()

    unit = sampleUnit({ draft })
    const again = await mountAnnotator()
    expect(again.get('[data-testid="start-button"]').text()).toContain('Resume')
    await press('Enter')
    expect(byTestId(again, 'span-item').map((s) => s.attributes('data-label')).slice(0, 3)).toEqual(['true', 'true', ''])
    expect(byTestId(again, 'span-item')[2].attributes('data-current')).toBe('true')
  })

  it('offline: says so, and a reload restores the changes the server never got from a local copy', async () => {
    failDrafts = true
    const w = await mountAnnotator()
    await press('Enter')
    await press('n')
    await wait(400)
    expect(w.get('[data-testid="save-indicator"]').text()).toBe('Offline — will retry')
    mounted.pop().unmount()

    failDrafts = false
    const again = await mountAnnotator() // server still has no draft
    expect(byTestId(again, 'span-item')[0].attributes('data-label')).toBe('false')
    await wait(400)
    const put = calls.filter((c) => c.method === 'PUT' && !c.keepalive).at(-1)
    expect(put.body.draft.labels.spans).toEqual({ [unit.responses[0].spans[0].id]: false })
    expect(localStorage.length).toBe(0) // acknowledged: the local copy is gone
  })

  it('submit jumps to the first missing item; complete work is posted, announced and sent to MTurk', async () => {
    const formSubmit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => {})
    const w = await mountAnnotator({ submitTo: 'https://workersandbox.mturk.com/mturk/externalSubmit', assignmentId: 'A1' })
    await press('Enter')
    await press('c')
    await press('Enter', { ctrlKey: true }) // submit
    expect(w.get('[data-testid="submit-message"]').text()).toMatch(/items still need a label/)
    expect(byTestId(w, 'span-item')[1].attributes('data-current')).toBe('true')
    expect(calls.some((c) => c.url.endsWith('/submit'))).toBe(false)

    // label everything with the buttons of the current item until the unit is complete
    for (let guard = 0; guard < 80; guard++) {
      const current = w.find('[data-current="true"]')
      if (!current.exists() || w.get('[data-testid="progress-bar"]').attributes('aria-valuenow') === w.get('[data-testid="progress-bar"]').attributes('aria-valuemax')) break
      await current.find('.label-btn').trigger('click')
    }
    await w.get('[data-testid="submit-button"]').trigger('click')
    await flushPromises()
    const post = calls.find((c) => c.url.endsWith('/submit'))
    expect(post.url).toBe('/api/work/tok/submit')
    // the newest draft is saved before the submission, and nothing is saved after it (the server would refuse: 409)
    const at = calls.indexOf(post)
    const lastDraft = calls.slice(0, at).filter((c) => c.method === 'PUT').at(-1)
    expect(lastDraft.body.draft.labels.pairwise).toBeDefined()
    expect(Object.keys(lastDraft.body.draft.labels.spans)).toHaveLength(11)
    await wait(400)
    expect(calls.slice(at + 1).filter((c) => c.method === 'PUT')).toHaveLength(0)
    expect(post.body.labels.spans).toHaveLength(11)
    expect(post.body.labels.qas).toHaveLength(12)
    expect(post.body.labels.pairwise).toEqual([{ aspect: 'consistency', score: 1 }])
    expect(post.body.time_on_task_ms).toBeGreaterThanOrEqual(0)
    expect(w.emitted('submitted')[0][0]).toEqual({ status: 'submitted', duplicate: false })
    expect(w.get('[data-testid="submitted-message"]').text()).toContain('Submitted')
    const form = document.querySelector('form[action$="/mturk/externalSubmit"]')
    expect(form).not.toBeNull()
    expect(form.querySelector('input[name="assignmentId"]').value).toBe('A1')
    expect(formSubmit).toHaveBeenCalledTimes(1)
    formSubmit.mockRestore()
  })

  it('shows server validation errors and stays open', async () => {
    unit = sampleUnit({ mode: 'validation' })
    submitReply = [400, { errors: [{ field: 'labels.validation[0].valid', message: 'required' }] }]
    const w = await mountAnnotator()
    await press('Enter')
    for (let i = 0; i < 12; i++) await press('v')
    await press('Enter', { ctrlKey: true })
    expect(w.get('[data-testid="submit-message"]').text()).toContain('labels.validation[0].valid: required')
    expect(byTestId(w, 'submitted-message')).toHaveLength(0)
  })

  it('preview: the unit is visible, nothing can be labeled or submitted', async () => {
    const w = await mountAnnotator({ preview: 'true' })
    expect(w.get('[data-testid="preview-banner"]').text()).toContain('Accept the HIT to start')
    expect(byTestId(w, 'start-button')).toHaveLength(0)
    expect(byTestId(w, 'span-item')).toHaveLength(6)
    await press('Enter')
    await press('c')
    expect(byTestId(w, 'span-item')[0].attributes('data-label')).toBe('')
    expect(w.get('[data-testid="submit-button"]').attributes('disabled')).toBeDefined()
    expect(w.get('[data-testid="label-covered"]').attributes('disabled')).toBeDefined()
    await wait(350)
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([])
  })

  it('facts: edit, split at the cursor, merge, delete from the keyboard', async () => {
    unit = sampleUnit({ mode: 'factscore' })
    const w = await mountAnnotator()
    await press('Enter')
    await press('s') // fact 1: S, cursor on fact 2
    await press('e')
    const input = w.get('[data-testid="fact-text-input"]')
    expect(document.activeElement).toBe(input.element)
    input.element.value = 'The man was 52 years old and from Ohio.'
    await input.trigger('input')
    input.element.setSelectionRange(24, 24)
    await input.trigger('keydown', { key: 'Enter', shiftKey: true })
    let texts = byTestId(w, 'fact-item').map((f) => f.find('.fact-text').text())
    expect(texts.slice(0, 3)).toEqual(['A man died from measles.', 'The man was 52 years old', 'and from Ohio.'])
    await press('m') // merge them back
    texts = byTestId(w, 'fact-item').map((f) => f.find('.fact-text').text())
    expect(texts[1]).toBe('The man was 52 years old and from Ohio.')
    expect(byTestId(w, 'fact-item')).toHaveLength(5)
    await press('d')
    expect(byTestId(w, 'fact-item')).toHaveLength(4)
    expect(byTestId(w, 'fact-item').map((f) => f.find('.fact-text').text())).not.toContain('The man was 52 years old and from Ohio.')
    await press('u')
    expect(byTestId(w, 'fact-item')).toHaveLength(5)
  })

  it('keys typed right after e / a, before the editor renders, land in the editor, not in navigation', async () => {
    unit = sampleUnit({ mode: 'factscore' })
    const w = await mountAnnotator()
    await press('Enter')
    // e then "jk s" in one go: no microtask (no Vue render) runs between these keydowns
    for (const key of ['e', ' ', 'j', 'k', 's']) window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
    await flushPromises()
    const input = w.get('[data-testid="fact-text-input"]')
    expect(document.activeElement).toBe(input.element)
    expect(input.element.value).toBe('A man died from measles. jks')
    expect(input.element.selectionStart).toBe(input.element.value.length) // caret at the end
    expect(byTestId(w, 'fact-item')[0].attributes('data-current')).toBe('true') // j / k did not move
    expect(byTestId(w, 'fact-item')[0].attributes('data-label')).toBe('') // s did not label
    await input.trigger('keydown', { key: 'Enter' })
    expect(byTestId(w, 'fact-item')[0].find('.fact-text').text()).toBe('A man died from measles. jks')
    // once the editor is closed, the same keys navigate and label again
    await press('s')
    expect(byTestId(w, 'fact-item')[0].attributes('data-label')).toBe('S')
    expect(byTestId(w, 'fact-item')[1].attributes('data-current')).toBe('true')
    // a: a new empty fact, typed into at once
    for (const key of ['a', 'X', 'y']) window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
    await flushPromises()
    expect(w.get('[data-testid="fact-text-input"]').element.value).toBe('Xy')
    expect(byTestId(w, 'fact-item')).toHaveLength(6)
  })

  it('the QA note takes keys typed right after e', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    await w.get('[data-testid="step-tab"][data-section-index="1"]').trigger('click')
    for (const key of ['e', 'o', 'k']) window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
    await flushPromises()
    const note = w.get('[data-testid="qa-note"]')
    expect(document.activeElement).toBe(note.element)
    expect(note.element.value).toBe('ok')
    expect(byTestId(w, 'qa-item')[0].attributes('data-current')).toBe('true')
  })

  it('a step whose QAs all follow from step 1 is shown done, not 0/0', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    for (let i = 0; i < 6; i++) await press('n') // every span of A not covered: all of A's QAs are derived
    const tab = w.get('[data-testid="step-tab"][data-section-index="1"]')
    expect(tab.attributes('data-done')).toBe('true')
    expect(tab.classes()).toContain('done')
    expect(tab.get('[data-testid="step-count"]').text()).toBe('from step 1')
    // the cursor skipped A's step 2 (nothing to ask there) and went on to B
    expect(w.get('[data-testid="progress"]').text()).toBe('Response B · Step 1 · 0 / 5 spans')
    await tab.trigger('click')
    expect(w.get('[data-testid="progress"]').text()).toBe('Response A · Step 2 · all 6 QAs answered in step 1')
    expect(byTestId(w, 'qa-item').every((q) => q.attributes('data-derived') === 'true')).toBe(true)
    // B's step 2 is not done: its tab has no check
    const other = w.get('[data-testid="step-tab"][data-section-index="3"]')
    expect(other.attributes('data-done')).toBe('false')
    expect(other.get('[data-testid="step-count"]').text()).toBe('0/6')
  })

  it('an embedded unit (unit-data-id) renders with the first render, with no request', async () => {
    const tag = document.createElement('script')
    tag.type = 'application/json'
    tag.id = 'fc-unit'
    tag.textContent = JSON.stringify(sampleUnit())
    document.body.appendChild(tag)
    unit = { ...sampleUnit(), project: { name: 'From the API' } } // would differ if it were fetched
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok', unitDataId: 'fc-unit' }, attachTo: document.body })
    mounted.push(w)
    // synchronously: no await between mount and the Start button
    expect(w.find('[data-testid="start-button"]').exists()).toBe(true)
    expect(w.find('[data-testid="loading"]').exists()).toBe(false)
    expect(document.activeElement).toBe(w.get('[data-testid="start-button"]').element)
    await flushPromises()
    expect(calls.filter((c) => c.method === 'GET')).toEqual([])
    expect(w.get('.fc-title').text()).toBe('Measles news · consistency')
    await press('Enter')
    await press('c')
    expect(byTestId(w, 'span-item')[0].attributes('data-label')).toBe('true')
    await wait(400)
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.url)).toEqual(['/api/work/tok/draft']) // drafts still go to the API
  })

  it('without the embedded unit (absent id, or not JSON) the element fetches it', async () => {
    const tag = document.createElement('script')
    tag.type = 'application/json'
    tag.id = 'broken'
    tag.textContent = '{not json'
    document.body.appendChild(tag)
    for (const id of ['missing', 'broken']) {
      calls = []
      const w = await mountAnnotator({ unitDataId: id })
      expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/work/tok/unit'])
      expect(w.find('[data-testid="start-button"]').exists()).toBe(true)
      mounted.pop().unmount()
    }
  })

  it('a long step renders its first items first and the rest right after', async () => {
    const u = sampleUnit()
    const r = u.responses[0]
    r.spans = Array.from({ length: 40 }, (_, k) => ({ id: 1000 + k, start: k % r.tokens.length, end: (k % r.tokens.length) + 1, text: `span ${k}`, qa_ids: [] }))
    unit = u
    const w = await mountAnnotator()
    expect(byTestId(w, 'span-item')).toHaveLength(16)
    expect(w.get('[data-testid="progress"]').text()).toBe('Response A · Step 1 · 0 / 40 spans') // counts cover all of them
    await wait(120)
    expect(byTestId(w, 'span-item')).toHaveLength(40)
    const ids = byTestId(w, 'span-item').map((x) => Number(x.attributes('data-span-id')))
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, k) => 1000 + k))
  })

  it('renders the sections of the plan, each with the component of its kind', async () => {
    const b = unit.responses[1]
    unit.plan = [{ kind: 'qa_validation', response_id: b.id }, { kind: 'pairwise', aspects: ['faithfulness', 'relevance'] }]
    const w = await mountAnnotator()
    expect(byTestId(w, 'step-tab').map((t) => t.attributes('data-section-kind'))).toEqual(['validation', 'pairwise'])
    expect(byTestId(w, 'validation-item').map((q) => Number(q.attributes('data-qa-id')))).toEqual(b.qas.map((q) => q.id))
    expect(byTestId(w, 'qa-item')).toHaveLength(0)
    await press('Enter')
    await press(']')
    expect(byTestId(w, 'pairwise-item').map((p) => p.attributes('data-aspect'))).toEqual(['faithfulness', 'relevance'])
    expect(byTestId(w, 'response-text')).toHaveLength(2) // both responses, side by side
  })

  it('? opens the instructions with worked examples; Escape closes them', async () => {
    const w = await mountAnnotator()
    await press('Enter')
    await press('?')
    expect(w.get('[data-testid="instructions"]').text()).toContain('Step 1 · Span coverage')
    expect(w.get('[data-testid="instructions"]').text()).toContain('Judge only against the reference')
    await press('c') // keys do not label behind the dialog
    expect(byTestId(w, 'span-item')[0].attributes('data-label')).toBe('')
    await press('Escape')
    expect(byTestId(w, 'instructions')).toHaveLength(0)
  })
})

describe('the custom element', () => {
  it('registers <factcrowd-annotator> with an open shadow root and inlined styles', async () => {
    await import('../src/annotator/main.js')
    const el = document.createElement('factcrowd-annotator')
    el.setAttribute('token', 'tok')
    el.setAttribute('api-base', '/base')
    document.body.appendChild(el)
    await flushPromises()
    await flushPromises()
    expect(el.shadowRoot).not.toBeNull()
    expect(el.shadowRoot.mode).toBe('open')
    expect(calls[0].url).toBe('/base/api/work/tok/unit')
    const css = [...el.shadowRoot.querySelectorAll('style')].map((s) => s.textContent).join('\n')
    expect(css).toContain('--fc-accent')
    expect(el.shadowRoot.querySelector('[data-testid="start-button"]')).not.toBeNull()
  })

  it('emits a `submitted` CustomEvent whose detail is the server response', async () => {
    unit = sampleUnit({ mode: 'validation' })
    await import('../src/annotator/main.js')
    const el = document.createElement('factcrowd-annotator')
    el.setAttribute('token', 'tok')
    const events = []
    document.body.addEventListener('submitted', (e) => events.push(e.detail)) // bubbles out of the element
    document.body.appendChild(el)
    await flushPromises()
    el.shadowRoot.querySelector('[data-testid="start-button"]').click()
    await flushPromises()
    for (let i = 0; i < 12; i++) await press(i % 2 ? 'x' : 'v')
    el.shadowRoot.querySelector('[data-testid="submit-button"]').click()
    await flushPromises()
    await flushPromises()
    const post = calls.find((c) => c.url.endsWith('/submit'))
    expect(post.body.labels.validation.map((v) => v.valid).slice(0, 4)).toEqual([true, false, true, false])
    expect(events).toEqual([{ status: 'submitted', duplicate: false }])
    el.remove()
    await flushPromises()
  })
})
