// A sample unit for the demo page and the component tests (shape: docs/annotator-api.md).

function tokenize(text) {
  const tokens = []
  const re = /\S+/g
  let m
  while ((m = re.exec(text))) tokens.push([m[0], m.index, m.index + m[0].length])
  return tokens
}

function sentences(text, tokens) {
  const out = []
  let start = 0
  tokens.forEach(([t], i) => {
    if (t === '.' || i === tokens.length - 1) {
      out.push({ start, end: i + 1, text: text.slice(tokens[start][1], tokens[i][2]) })
      start = i + 1
    }
  })
  return out
}

let nextId = 100
function response(id, label, text, preds, facts) {
  const tokens = tokenize(text)
  const predicates = []
  const qas = []
  const spans = []
  for (const [tokenIndex, verbForm, items] of preds) {
    const pid = nextId++
    predicates.push({ id: pid, token_index: tokenIndex, text: tokens[tokenIndex][0], verb_form: verbForm, kind: 'verbal' })
    for (const [question, start, end] of items) {
      const qid = nextId++
      const answer = tokens.slice(start, end).map((t) => t[0]).join(' ')
      qas.push({ id: qid, predicate_id: pid, question, answer, answer_start: start, answer_end: end })
      const existing = spans.find((s) => s.start === start && s.end === end)
      if (existing) existing.qa_ids.push(qid)
      else spans.push({ id: nextId++, start, end, text: answer, qa_ids: [qid] })
    }
  }
  const sents = sentences(text, tokens)
  return {
    id, label, text, tokens, sentences: sents, predicates, qas, spans,
    facts: facts.map(([sentenceIndex, t]) => ({ id: nextId++, sentence_index: sentenceIndex, text: t })),
  }
}

/** The plan the server sends with the unit (docs/annotator-api.md, annotation_tasks/protocols/): the sections. */
function samplePlan(mode, rag, responses) {
  if (mode === 'factscore') return responses.map((r) => ({ kind: 'fact_labeling', response_id: r.id }))
  if (mode === 'entailment') return responses.map((r) => ({ kind: 'fact_entailment', response_id: r.id }))
  if (mode === 'validation') return responses.map((r) => ({ kind: 'qa_validation', response_id: r.id }))
  return [
    ...responses.flatMap((r) => [
      { kind: 'span_coverage', response_id: r.id, step: 1 },
      { kind: 'qa_support', response_id: r.id, step: 2, derived_from_spans: true },
    ]),
    { kind: 'pairwise', response_ids: responses.map((r) => r.id), aspects: rag ? ['faithfulness', 'relevance'] : ['consistency'] },
  ]
}

export function sampleUnit({ mode = 'qasem', rag = false, draft = null, preview = false } = {}) {
  nextId = 100
  const a = response(5, 'Response A',
    'A 52-year-old man from Ohio died from measles last week . He had not been vaccinated , health officials said .',
    [
      [5, 'die', [['Who died?', 0, 5], ['How did someone die?', 6, 8], ['When did someone die?', 8, 10]]],
      [15, 'vaccinate', [['Who had not been vaccinated?', 11, 12]]],
      [19, 'say', [['Who said something?', 17, 19], ['What did someone say?', 11, 16]]],
    ],
    [[0, 'A man died from measles.'], [0, 'The man was 52 years old and from Ohio.'], [0, 'He died last week.'], [1, 'He had not been vaccinated.'], [1, 'Health officials said so.']])
  const b = response(6, 'Response B',
    'An Ohio man died in a Texas hospital after contracting measles . Doctors said he was 60 .',
    [
      [3, 'die', [['Who died?', 0, 3], ['Where did someone die?', 4, 8]]],
      [9, 'contract', [['Who contracted something?', 0, 3], ['What did someone contract?', 10, 11]]],
      [13, 'say', [['Who said something?', 12, 13], ['What did someone say?', 14, 17]]],
    ],
    [[0, 'An Ohio man died.'], [0, 'He died in a Texas hospital.'], [0, 'He contracted measles.'], [1, 'Doctors said he was 60.']])
  return {
    assignment: { id: 12, status: 'assigned', mode, preview },
    project: {
      name: 'Measles news · consistency',
      instructions: 'Judge only against the reference on the left. Your own knowledge does not count.',
      protocol: { qasem: ['span_coverage', 'qa_support', 'pairwise'], factscore: ['fact_labeling'], entailment: ['fact_entailment'] }[mode] || ['qa_validation'],
    },
    source: rag
      ? { id: 1, text: '', question: 'Who died of measles in Ohio?', passages: [
          'Ohio health officials said a 52-year-old man died of measles last week.',
          'The man, who had not been vaccinated, was treated in a Columbus hospital.'] }
      : { id: 1, text: 'Ohio health officials said on Monday that a 52-year-old man died of measles last week. The man had not been vaccinated. It is the first measles death in the state since 1991.', passages: [], question: '' },
    responses: [a, b],
    plan: samplePlan(mode, rag, [a, b]),
    draft,
    draft_saved_at: draft ? '2026-11-30T00:00:00Z' : null,
  }
}
