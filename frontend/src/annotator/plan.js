// The plan of a unit: which sections the annotator works through, in order. The server decides it (payload.plan,
// docs/annotator-api.md, annotation_tasks/protocols/); the element renders it and derives no sections itself.
// An entry: { kind, response_id } per response, or an entry across responses (its kind module says which, and
// what it needs: protocols/index.js). Each kind's keys are its module's business.
import { kindModule } from './protocols/index.js'

/**
 * The plan entries of a unit, each bound to its response and module: [{ kind, response: index | null, entry,
 * module }]. Entries the element cannot render are dropped: unknown kinds (unsupportedKinds names them), a response
 * the unit does not have, an entry its module does not accept (e.g. a comparison without two responses).
 */
export function resolvePlan(unit) {
  const responses = unit.responses || []
  const out = []
  for (const entry of planEntries(unit)) {
    const module = kindModule(entry.kind)
    if (!module || (module.accepts && !module.accepts(entry, unit))) continue
    if (!module.perResponse) {
      out.push({ kind: entry.kind, response: null, entry, module })
      continue
    }
    const r = responses.findIndex((x) => x.id === entry.response_id)
    if (r >= 0) out.push({ kind: entry.kind, response: r, entry, module })
  }
  return out
}

/** The plan kinds of a unit this element has no module for (in plan order, once each). */
export function unsupportedKinds(unit) {
  return [...new Set(planEntries(unit).filter((e) => !kindModule(e.kind)).map((e) => String(e.kind)))]
}

const planEntries = (unit) => (Array.isArray(unit.plan) ? unit.plan : []).filter((e) => e && typeof e === 'object')
