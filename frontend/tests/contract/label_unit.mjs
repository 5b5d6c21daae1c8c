// Labels a unit through the element's own kind modules and prints the submit body, for the server's contract suite
// (tests/protocols/test_element_contract.py, docs/annotator-api.md):
//   cd frontend && node tests/contract/label_unit.mjs PAYLOAD.json
// PAYLOAD.json is the unit exactly as GET /api/work/<token>/unit serves it. Every item of every plan section gets
// its kind's first label option (or the module's sampleValue), in the element's own order (so a derived item stays
// derived), through state.js as the element labels it; stdout is exactly the JSON the element POSTs to submit.
// Exit 2 with "no element module for plan kind <kind>" on stderr when the plan needs a kind this element lacks;
// exit 1 when the unit cannot be completed (an item its module cannot label). Plain Node ESM: no Vue, no .vue.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as S from '../../src/annotator/state.js'

export class MissingModule extends Error {}

/** The submit body for `unit` with every item labeled; throws MissingModule for a plan kind with no module. */
export function labelUnit(unit, timeOnTaskMs = 1000) {
  const model = S.buildModel(unit)
  if (model.unsupported.length) throw new MissingModule(model.unsupported.map((k) => `no element module for plan kind ${k}`).join('\n'))
  const state = S.createState(model)
  state.started = true
  const budget = model.sections.reduce((n, _, si) => n + S.sectionItems(model, state, si).length, 0) + 1
  for (let guard = 0; guard <= budget; guard++) {
    const missing = S.missingItems(model, state)
    if (!missing.length) return { labels: S.submitLabels(model, state), time_on_task_ms: Math.round(timeOnTaskMs) }
    const { section, item } = missing[0]
    S.select(model, state, section, item)
    const module = S.moduleOf(model.sections[section])
    const it = S.currentItem(model, state)
    if (!S.label(model, state, module.sampleValue ? module.sampleValue(it) : module.options[0].value)) break
  }
  throw new Error(`could not label every item: ${S.missingItems(model, state).map((m) => m.message).join('; ')}`)
}

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write('usage: node tests/contract/label_unit.mjs PAYLOAD.json\n')
    return 64
  }
  try {
    process.stdout.write(`${JSON.stringify(labelUnit(JSON.parse(readFileSync(argv[0], 'utf8'))))}\n`)
    return 0
  } catch (err) {
    process.stderr.write(`${err.message}\n`)
    return err instanceof MissingModule ? 2 : 1
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2))
