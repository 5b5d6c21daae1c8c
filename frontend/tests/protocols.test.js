// The element's protocol registry (src/annotator/protocols/): every plan kind has a complete module and a section
// component, and a unit whose plan needs a kind this element does not know is refused, not silently emptied.
import { afterEach, describe, expect, it } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import { createController } from '../src/annotator/controller.js'
import { kindModule, PLAN_KINDS, PROTOCOLS } from '../src/annotator/protocols/index.js'
import { sectionComponent } from '../src/annotator/protocols/components.js'
import { keyAction } from '../src/annotator/keyboard.js'
import * as S from '../src/annotator/state.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

const REQUIRED = ['kind', 'sectionKind', 'noun', 'labels', 'submitKey', 'options', 'guide', 'build', 'value', 'setValue', 'missing', 'collect', 'restore']

describe('the protocol registry', () => {
  it('every plan kind has a complete module, a section component, and belongs to one protocol', () => {
    expect(PLAN_KINDS.length).toBeGreaterThan(0)
    for (const kind of PLAN_KINDS) {
      const m = kindModule(kind)
      for (const field of REQUIRED) expect(m[field], `${kind}.${field}`).toBeDefined()
      expect(sectionComponent(kind), kind).toBeTruthy()
      expect(PROTOCOLS.filter((p) => p.kinds.some((k) => k.kind === kind)).map((p) => p.name)).toEqual([m.protocol])
    }
    expect(kindModule('no_such_kind')).toBeNull()
  })

  it('no key means two things in one section: labels, commands and navigation keys are distinct', () => {
    const nav = ['j', 'k', 'u', '?', '[', ']', 'arrowdown', 'arrowup', 'arrowleft', 'arrowright', 'escape']
    for (const kind of PLAN_KINDS) {
      const m = kindModule(kind)
      const keys = [...m.options.flatMap((o) => o.keys), ...Object.keys(m.commands || {})]
      expect(new Set(keys).size, kind).toBe(keys.length)
      for (const key of keys) expect(nav, `${kind}: ${key}`).not.toContain(key)
      for (const o of m.options) expect(keyAction({ key: o.keys[0] }, m)).toEqual({ type: 'label', value: o.value })
      for (const [key, command] of Object.entries(m.commands || {})) {
        expect(keyAction({ key }, m)).toEqual({ type: command })
        expect(typeof m.run?.[command], `${kind} runs ${command}`).toBe('function')
      }
    }
  })
})

function unknownKindUnit() {
  const unit = sampleUnit({ mode: 'validation' })
  unit.plan = [...unit.plan, { kind: 'stance_labeling', response_id: unit.responses[0].id }]
  return unit
}

describe('a plan kind this element does not support', () => {
  const controllers = []
  afterEach(() => {
    while (controllers.length) controllers.pop().unmount()
    document.body.innerHTML = ''
  })

  it('the model names it, whatever else the plan has', () => {
    const model = S.buildModel(unknownKindUnit())
    expect(model.unsupported).toEqual(['stance_labeling'])
    expect(model.sections.map((s) => s.planKind)).toEqual(['qa_validation', 'qa_validation'])
  })

  it('the unit is an error naming the kind: nothing starts, nothing is saved or submitted', async () => {
    const calls = []
    const fetchImpl = (url, init = {}) => {
      calls.push(`${init.method || 'GET'} ${url}`)
      return Promise.resolve(new Response(JSON.stringify(unknownKindUnit()), { status: 200, headers: { 'Content-Type': 'application/json' } }))
    }
    const c = createController({ token: 'tok', apiBase: '' }, {}, { fetchImpl })
    controllers.push(c)
    c.mount(window, document)
    await flushPromises()
    expect(c.phase.value).toBe('error')
    expect(c.loadError.value).toBe('This unit needs plan kind stance_labeling, which this element version does not support. It cannot be labeled or submitted here.')
    c.start()
    await c.submit()
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true, cancelable: true }))
    await flushPromises()
    expect(calls).toEqual(['GET /api/work/tok/unit'])
  })

  it('an embedded unit is refused at once, without a request; an empty plan is refused too', async () => {
    const c = createController({ token: 'tok', apiBase: '' }, { embeddedUnit: unknownKindUnit }, { fetchImpl: () => Promise.reject(new Error('no request')) })
    controllers.push(c)
    expect(c.phase.value).toBe('error')
    expect(c.loadError.value).toMatch(/plan kind stance_labeling/)
    const empty = createController({ token: 'tok', apiBase: '' }, { embeddedUnit: () => ({ ...sampleUnit(), plan: [] }) })
    controllers.push(empty)
    expect(empty.phase.value).toBe('error')
    expect(empty.loadError.value).toMatch(/nothing to label/)
  })

  it('the element shows the error instead of the task', async () => {
    document.body.innerHTML = `<script type="application/json" id="u">${JSON.stringify(unknownKindUnit())}</script>`
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok', unitDataId: 'u' }, attachTo: document.body })
    await flushPromises()
    expect(w.get('[data-testid="load-error"]').text()).toContain('plan kind stance_labeling')
    expect(w.find('[data-testid="start-button"]').exists()).toBe(false)
    expect(w.find('[data-testid="submit-button"]').exists()).toBe(false)
    w.unmount()
  })
})
