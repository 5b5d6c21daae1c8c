// The Protocol tab keeps unsaved edits (per project, in localStorage) until they are saved or discarded, shows load
// failures and each card's own errors; "Create project" and "Start parsing" cannot be sent twice by a double click.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import ProjectSetup from '../src/dashboard/views/ProjectSetup.vue'
import Projects from '../src/dashboard/views/Projects.vue'
import DataView from '../src/dashboard/views/DataView.vue'
import { setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

const PROJECT = {
  id: 7, name: 'Study', description: 'from the server', protocol: ['span_coverage', 'qa_support'],
  annotations_per_item: 3, instructions: 'Judge it.', role: 'researcher',
  parse_policy: { kinds: ['verbal', 'nominal', 'copular'], min_confidence: 0, max_qas_per_predicate: null, min_fact_confidence: 0 },
  unit_caps: { spans: 12, qas: 20, facts: 30 },
}
const KEY = 'factcrowd.setup.7'
const json = (body, status = 200) => ({ ok: status < 400, status, text: async () => JSON.stringify(body) })

/** fetch answering by "METHOD path": a function (init) => response | promise; calls are recorded. */
function stubFetch(routes, calls = []) {
  const fetch = vi.fn(async (url, init = {}) => {
    const method = init.method || 'GET'
    const path = url.split('?')[0]
    calls.push([method, path, init.body ? JSON.parse(init.body) : undefined])
    const route = routes[`${method} ${path}`]
    if (!route) return json({ count: 0, results: [] })
    return route(init)
  })
  vi.stubGlobal('fetch', fetch)
  return calls
}
const deferred = () => {
  let resolve
  const promise = new Promise((r) => (resolve = r))
  return { promise, resolve }
}

beforeEach(() => {
  setManifest(manifest)
  window.localStorage.clear()
})
afterEach(() => {
  vi.unstubAllGlobals()
  window.localStorage.clear()
})

const members = () => json([{ id: 1, username: 'demo', role: 'researcher' }])
const setup = async (project = PROJECT) => {
  const w = mount(ProjectSetup, { props: { project }, attachTo: document.body })
  await flushPromises()
  return w
}
const protocolCard = (w) => w.find('[data-testid=protocol-card]')

describe('ProjectSetup unsaved draft', () => {
  it('keeps typed description and instructions over a remount (tab switch, reload) until saved', async () => {
    const calls = stubFetch({
      'GET /api/projects/7/members/': members,
      'PATCH /api/projects/7/': (init) => json({ ...PROJECT, ...JSON.parse(init.body) }),
    })
    let w = await setup()
    expect(w.find('[data-testid=draft-restored]').exists()).toBe(false)
    await w.find('input[name=description]').setValue('typed description')
    await w.find('textarea[name=instructions]').setValue('typed instructions')
    expect(calls.filter(([m]) => m === 'PATCH')).toEqual([]) // a draft, not a save
    // only what differs from the server is kept: the other fields follow the server when restored
    expect(JSON.parse(window.localStorage.getItem(KEY))).toEqual({
      protocol: { description: 'typed description', instructions: 'typed instructions' } })
    w.unmount()

    w = await setup() // the tab opened again: the server still holds the old values
    expect(w.find('input[name=description]').element.value).toBe('typed description')
    expect(w.find('textarea[name=instructions]').element.value).toBe('typed instructions')
    expect(w.find('[data-testid=draft-restored]').text()).toContain('Unsaved changes restored — Save or Discard')

    await protocolCard(w).find('form').trigger('submit')
    await flushPromises()
    const patch = calls.filter(([m]) => m === 'PATCH')
    expect(patch).toHaveLength(1)
    expect(patch[0][2]).toMatchObject({ description: 'typed description', instructions: 'typed instructions' })
    expect(window.localStorage.getItem(KEY)).toBe(null)
    expect(w.find('[data-testid=draft-restored]').exists()).toBe(false)
    w.unmount()

    w = await setup({ ...PROJECT, description: 'typed description', instructions: 'typed instructions' })
    expect(w.find('[data-testid=draft-restored]').exists()).toBe(false)
    w.unmount()
  })

  it('Discard puts the server values back and forgets the draft', async () => {
    stubFetch({ 'GET /api/projects/7/members/': members })
    let w = await setup()
    await w.find('input[name=description]').setValue('typed description')
    await w.find('input[name=cap-spans]').setValue(5)
    w.unmount()

    w = await setup()
    expect(w.find('input[name=cap-spans]').element.value).toBe('5')
    await w.find('[data-testid=discard-draft]').trigger('click')
    await flushPromises()
    expect(w.find('input[name=description]').element.value).toBe('from the server')
    expect(w.find('textarea[name=instructions]').element.value).toBe('Judge it.')
    expect(w.find('input[name=cap-spans]').element.value).toBe('12')
    expect(w.find('[data-testid=draft-restored]').exists()).toBe(false)
    expect(window.localStorage.getItem(KEY)).toBe(null)
    w.unmount()

    w = await setup()
    expect(w.find('input[name=description]').element.value).toBe('from the server')
    w.unmount()
  })

  it('asks before leaving the page while the form differs from the server, not otherwise', async () => {
    stubFetch({ 'GET /api/projects/7/members/': members })
    const w = await setup()
    const leave = () => {
      const event = new Event('beforeunload', { cancelable: true })
      window.dispatchEvent(event)
      return event.defaultPrevented
    }
    expect(leave()).toBe(false)
    await w.find('textarea[name=instructions]').setValue('changed')
    expect(leave()).toBe(true)
    await w.find('textarea[name=instructions]').setValue('Judge it.') // back to the server's value
    expect(leave()).toBe(false)
    expect(window.localStorage.getItem(KEY)).toBe(null)
    w.unmount()
  })
})

describe('ProjectSetup errors', () => {
  it('shows a failed members load in the page error line, never an unhandled rejection', async () => {
    stubFetch({ 'GET /api/projects/7/members/': () => Promise.reject(new TypeError('Failed to fetch')) })
    const w = await setup()
    expect(w.find('[data-testid=error]').text()).toContain('Failed to fetch')
    w.unmount()
  })

  it('shows a parsing-and-units save error in that card, not in the Protocol card', async () => {
    stubFetch({
      'GET /api/projects/7/members/': members,
      'PATCH /api/projects/7/': () => json({ unit_caps: { spans: ['must be an integer from 1 to 1000'] } }, 400),
    })
    const w = await setup()
    await w.find('input[name=cap-spans]').setValue(0)
    await w.find('[data-testid=save-policy]').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=policy-card]').text()).toContain('unit_caps')
    expect(protocolCard(w).text()).not.toContain('unit_caps')
    w.unmount()
  })
})

describe('Create project', () => {
  it('is disabled while its request is in flight: a double click sends one POST', async () => {
    const answer = deferred()
    const calls = stubFetch({ 'POST /api/projects/': () => answer.promise })
    const w = mount(Projects)
    await flushPromises()
    await w.find('[data-testid=new-project]').trigger('click')
    await w.find('input[name=name]').setValue('Twice')
    // a disabled <fieldset> disables the form's button (browsers; happy-dom does not model it: the fieldset is checked)
    const button = () => w.find('[data-testid=create-fieldset] button[type=submit]')
    expect(button().element.closest('fieldset').disabled).toBe(false)
    await w.find('[data-testid=create-fieldset] form').trigger('submit')
    await w.find('[data-testid=create-fieldset] form').trigger('submit')
    expect(button().element.closest('fieldset').disabled).toBe(true)
    expect(button().text()).toBe('Creating…')
    expect(calls.filter(([m]) => m === 'POST')).toHaveLength(1)
    answer.resolve(json({ name: ['project with this name already exists.'] }, 400))
    await flushPromises()
    expect(w.find('[data-testid=create-fieldset]').element.disabled).toBe(false)
    expect(w.find('[data-testid=error]').text()).toContain('already exists')
    w.unmount()
  })
})

describe('Start parsing', () => {
  it('is disabled while the start request is in flight and while the parse job runs', async () => {
    const started = deferred()
    let status = 'running'
    const calls = stubFetch({
      'POST /api/projects/5/parse/': () => started.promise,
      'GET /api/jobs/9/': () => json({ id: 9, kind: 'parse', status, done: 1, total: 4 }),
    })
    const w = mount(DataView, { props: { project: { id: 5 } } })
    await flushPromises()
    const button = () => w.find('[data-testid=start-parse]')
    expect(button().element.disabled).toBe(false)
    await button().trigger('click')
    await button().trigger('click')
    expect(button().element.disabled).toBe(true)
    expect(calls.filter(([m]) => m === 'POST')).toHaveLength(1)

    started.resolve(json({ id: 9, kind: 'parse', status: 'queued', done: 0, total: 4 }))
    await flushPromises()
    expect(w.find('[data-testid=parse-job]').exists()).toBe(true)
    expect(button().element.disabled).toBe(true) // the job runs
    await button().trigger('click')
    expect(calls.filter(([m]) => m === 'POST')).toHaveLength(1)

    status = 'done'
    await vi.waitFor(() => expect(button().element.disabled).toBe(false), { timeout: 3000 })
    w.unmount()
  })

  it('is disabled when the tab opens on a parse job that is still running', async () => {
    stubFetch({
      'GET /api/jobs/': () => json({ count: 1, results: [{ id: 4, kind: 'parse', status: 'running', done: 1, total: 9 }] }),
      'GET /api/jobs/4/': () => json({ id: 4, kind: 'parse', status: 'running', done: 2, total: 9 }),
    })
    const w = mount(DataView, { props: { project: { id: 5 } } })
    await flushPromises()
    expect(w.find('[data-testid=start-parse]').element.disabled).toBe(true)
    w.unmount()
  })
})
