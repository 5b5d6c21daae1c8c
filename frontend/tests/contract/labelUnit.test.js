// tests/contract/label_unit.mjs, the element half of the server's contract suite: run as the server runs it (node,
// a payload file), its body is exactly what the element itself posts after labeling every item with the first
// label key, and a plan kind the element lacks exits 2 naming it.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { createController } from '../../src/annotator/controller.js'
import { sampleUnit } from '../../src/demo/sampleUnit.js'
import { labelUnit } from './label_unit.mjs'

const FRONTEND = join(import.meta.dirname, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'label-unit-'))
function run(unit, name) {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(unit))
  return spawnSync(process.execPath, ['tests/contract/label_unit.mjs', file], { cwd: FRONTEND, encoding: 'utf8' })
}

function ragasUnit() {
  const unit = sampleUnit({ rag: true })
  const [a, b] = unit.responses
  unit.assignment.mode = 'ragas'
  unit.plan = [{ kind: 'ragas_pairwise', response_ids: [a.id, b.id], aspects: ['faithfulness', 'context_relevance'], comparisons: [
    { aspect: 'faithfulness', compares: 'responses', a: a.id, b: b.id }, { aspect: 'context_relevance', compares: 'contexts', a: 0, b: 1 }] }]
  return unit
}
const UNITS = {
  qasem: () => sampleUnit(),
  'qasem-rag': () => sampleUnit({ rag: true }),
  factscore: () => sampleUnit({ mode: 'factscore' }),
  validation: () => sampleUnit({ mode: 'validation' }),
  ragas: ragasUnit,
  entailment: () => sampleUnit({ mode: 'entailment' }),
}

/** What the element posts after its own controller labeled every item with its kind's first option. */
async function elementBody(unit) {
  let posted = null
  const fetchImpl = (url, init = {}) => {
    if (url.endsWith('/submit')) posted = JSON.parse(init.body)
    const body = url.endsWith('/unit') ? unit : url.endsWith('/submit') ? { status: 'submitted', duplicate: false } : { saved_at: 'now' }
    return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }))
  }
  const c = createController({ token: 'tok', apiBase: '' }, {}, { fetchImpl })
  controllers.push(c)
  c.mount(window, document)
  await flushPromises()
  c.start()
  for (let guard = 0; guard < 500 && c.progress.value.done < c.progress.value.total; guard++) {
    c.choose(c.state.cursor.section, c.state.cursor.item, c.currentModule.value.options[0].value)
  }
  await c.submit()
  await flushPromises()
  return posted
}
const controllers = []
afterEach(() => {
  while (controllers.length) controllers.pop().unmount()
  localStorage.clear()
})

describe('label_unit.mjs', () => {
  for (const [name, make] of Object.entries(UNITS)) {
    it(`${name}: prints the body the element posts, every item labeled`, async () => {
      const out = run(make(), name)
      expect(out.stderr).toBe('')
      expect(out.status).toBe(0)
      const body = JSON.parse(out.stdout)
      const posted = await elementBody(make())
      expect(body.labels).toEqual(posted.labels)
      expect(Object.keys(body).sort()).toEqual(Object.keys(posted).sort())
      const sent = Object.values(body.labels).flat()
      expect(sent.length).toBeGreaterThan(0)
      expect(sent.every((x) => Object.values(x).every((v) => v !== undefined && v !== null))).toBe(true)
    })
  }

  it('the qasem body labels each span covered and each QA supported, none derived', () => {
    const unit = sampleUnit()
    const { labels } = labelUnit(unit)
    expect(labels.spans).toHaveLength(unit.responses.flatMap((r) => r.spans).length)
    expect(labels.qas.map((q) => [q.supported, q.derived_from_span])).toEqual(unit.responses.flatMap((r) => r.qas).map(() => [true, false]))
    expect(labels.pairwise).toEqual([{ aspect: 'consistency', score: 1 }])
  })

  it('a plan kind with no element module: exit 2, named on stderr, nothing on stdout', () => {
    const unit = sampleUnit({ mode: 'validation' })
    unit.plan.push({ kind: 'made_up_kind', response_id: unit.responses[0].id })
    const out = run(unit, 'unknown')
    expect(out.status).toBe(2)
    expect(out.stderr).toBe('no element module for plan kind made_up_kind\n')
    expect(out.stdout).toBe('')
  })

  it('imports no .vue file and not Vue: it runs in plain Node', () => {
    // the static import graph of the script, from its own file down
    const seen = new Set()
    const specifiers = []
    const walk = (file) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) {
        specifiers.push(spec)
        if (spec.startsWith('.')) walk(join(dirname(file), spec))
      }
    }
    walk(join(FRONTEND, 'tests/contract/label_unit.mjs'))
    expect(seen.size).toBeGreaterThan(5)
    expect(specifiers.filter((s) => s.endsWith('.vue') || s === 'vue' || s.startsWith('@vue'))).toEqual([])
  })
})
