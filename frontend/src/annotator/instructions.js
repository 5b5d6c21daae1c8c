// Built-in guidance with worked examples, per mode. The project's own instructions are shown above these.

export const GUIDES = {
  qasem: [
    {
      title: 'Step 1 · Span coverage',
      body: 'For each highlighted span of the response, decide whether the reference mentions it (the same entity, event or detail, possibly in other words).',
      examples: [
        { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'A man', label: 'Covered', keys: 'c', why: 'The reference mentions the man.' },
        { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'in a hospital in Texas', label: 'Not covered', keys: 'n', why: 'The reference says nothing about a hospital or Texas.' },
      ],
    },
    {
      title: 'Step 2 · QA support',
      body: 'Each question–answer pair states one fact about the highlighted predicate. Mark it supported only if the reference states (or clearly implies) exactly that. QAs whose span you marked not covered are already not supported and are skipped.',
      examples: [
        { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'How did someone die? — from measles', label: 'Supported', keys: 's', why: 'The reference says he died of measles.' },
        { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'When did someone die? — yesterday', label: 'Not supported', keys: 'n', why: 'The reference says last week, not yesterday.' },
      ],
    },
    {
      title: 'Compare',
      body: 'After both responses: which one is more consistent with the reference? 1 = A much more, 3 = about equal, 5 = B much more.',
      examples: [],
    },
  ],
  factscore: [
    {
      title: 'Atomic facts',
      body: 'Each sentence of the response is broken into short facts. Label each fact Supported (the reference states it), Not supported (it contradicts or is absent from the reference) or Irrelevant (not a claim about the topic, e.g. “I hope this helps”). Fix bad facts first: edit, split (two claims in one), merge (one claim in two), add (a claim was missed) or delete.',
      examples: [
        { reference: 'Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.', item: 'Marie Curie won two Nobel Prizes.', label: 'Supported', keys: 's', why: 'Physics 1903 and Chemistry 1911.' },
        { reference: 'Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.', item: 'Marie Curie was born in Paris.', label: 'Not supported', keys: 'n', why: 'The reference does not say where she was born (she was born in Warsaw).' },
      ],
    },
  ],
  ragas: [
    {
      title: 'Compare answers and contexts (Ragas)',
      body: 'For the question, each comparison shows two things side by side and asks one thing about them; 1 = the left one much better, 3 = about equal, 5 = the right one much better. Faithfulness: which answer makes only claims the contexts support. Answer relevance: which answer addresses the question directly and completely (correctness does not count here). Context relevance: which context holds what the question needs with the least that it does not.',
      examples: [
        { reference: 'Context: The bridge opened in 2021.', item: 'Faithfulness: “It opened in 2021.” vs “It opened in 1998.”', label: '1', keys: '1', why: 'Only the left answer follows from the context.' },
        { reference: 'Question: When did the bridge open?', item: 'Answer relevance: “Bridges cross rivers.” vs “It opened in 2021.”', label: '5', keys: '5', why: 'The right answer addresses the question; the left one does not.' },
      ],
    },
  ],
  validation: [
    {
      title: 'QA validation',
      body: 'Each question–answer pair was produced by a parser. Mark it valid if the question is grammatical, is about the highlighted predicate, and the answer answers it as stated in the response; otherwise invalid.',
      examples: [
        { reference: 'A man died from measles.', item: 'Who died? — A man', label: 'Valid', keys: 'v', why: 'A correct question about “died” with the right answer.' },
        { reference: 'A man died from measles.', item: 'What did someone die? — measles', label: 'Invalid', keys: 'x', why: 'The question is ungrammatical for this predicate.' },
      ],
    },
  ],
}

export const KEY_HELP = {
  span: [['c', '1'], 'Covered', ['n', '2'], 'Not covered'],
  qa: [['s', '1'], 'Supported', ['n', '2'], 'Not supported', ['e'], 'Note'],
  fact: [['s', '1'], 'Supported', ['n', '2'], 'Not supported', ['i', '3'], 'Irrelevant', ['e'], 'Edit', ['p'], 'Split', ['m'], 'Merge with next', ['a'], 'Add', ['d'], 'Delete'],
  pairwise: [['1', '5'], 'A much more … B much more'],
  validation: [['v', '1'], 'Valid', ['x', '2'], 'Invalid'],
}

export const COMMON_KEYS = [
  [['↓', 'j'], 'Next'],
  [['↑', 'k'], 'Previous'],
  [['[', ']'], 'Previous / next step'],
  [['u', 'Ctrl+Z'], 'Undo'],
  [['?'], 'Instructions'],
  [['Ctrl+Enter'], 'Submit'],
]
