// Plan kind pairwise (after both responses): which one is better on each aspect the plan names, 1–5.
import { scoredAspects } from '../shared.js'

export default {
  ...scoredAspects,
  kind: 'pairwise',
  guide: {
    title: 'Compare',
    body: 'After both responses: which one is more consistent with the reference? 1 = A much more, 3 = about equal, 5 = B much more.',
    examples: [],
  },
  bothResponses: true, // the work panel shows both responses side by side
  accepts: (entry, unit) => (unit.responses || []).length === 2,
  build: (model, entry) => ({
    title: 'Compare',
    items: (entry.aspects || []).filter((a) => typeof a === 'string').map((a) => ({ key: `p-${a}`, aspect: a })),
  }),
}
