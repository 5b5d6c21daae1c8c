// The report's automatic-score panel: table figures, the ROC polyline and the calibration dots in plot coordinates.
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import ScoresPanel from '../src/dashboard/components/ScoresPanel.vue'

const scorer = {
  scorer: 'embedded', version: '1-abc', level: 'qa',
  by_group: { cliff: { items: 10, supported_pct: 60, bacc: 70, auc: 80 } },
  all: { items: 20, supported_pct: 55, bacc: 75.5, auc: 85.25 },
  roc: [{ fpr: 0, tpr: 0, threshold: 1 }, { fpr: 0.25, tpr: 0.75, threshold: 0.5 }, { fpr: 1, tpr: 1, threshold: 0 }],
  calibration: { bins: [{ lower: 0, upper: 0.1, items: 5, mean_score: 0.05, supported_share: 0.2 },
    { lower: 0.9, upper: 1, items: 15, mean_score: 0.95, supported_share: 0.9 }], ece: 0.1 },
  responses: { responses: 4, pearson: 0.8, spearman: 0.7, mae: 12.5 },
  systems: { systems: [{ system: 'a', responses: 2, human: 50, metric: 40, error: -10 }], ranking_kept: null },
  pairwise: { faithfulness: { pairs: 3, spearman: 0.5, decided_pairs: 2, agreement_pct: 50 } },
  human_agreement: { all: { threshold: 0.5, kappa: 0.42, ece: 0.081 } },
  crowd_vs_scorer: { disagreements: 9, adjudicated: 4, crowd_right: 3, scorer_right: 1, scorer_right_pct: 25,
    versus_one_worker: { disagreements: 30, judged: 20, scorer_right: 5, worker_right: 15, scorer_right_pct: 25 } },
}

describe('ScoresPanel', () => {
  it('shows the figures per group and for all items', () => {
    const w = mount(ScoresPanel, { props: { scores: [scorer] } })
    expect(w.findAll('[data-testid=bacc]').map((c) => c.text())).toEqual(['70.0%', '75.5%'])
    expect(w.findAll('[data-testid=auc]').map((c) => c.text())).toEqual(['80.0%', '85.3%'])
    expect(w.find('[data-testid=response-level]').text()).toContain('Pearson 0.800')
    expect(w.find('[data-testid=system-estimates]').text()).toContain('-10.0')
    expect(w.find('[data-testid=pairwise-agreement]').text()).toContain('50.0% of 2 decided pairs')
    expect(w.find('[data-testid=human-agreement]').text()).toContain("Cohen's κ 0.420")
    const versus = w.find('[data-testid=crowd-vs-scorer]').text()
    expect(versus).toContain('9 items where the scorer and the crowd')
    expect(versus).toContain('sided with the scorer on 1 (25.0%) and with the crowd on 3')
    expect(versus).toContain('the scorer right on 5 of 20 (25.0%')
  })
  it('leaves out what the evaluation lacks (no adjudication, no third vote)', () => {
    const bare = { ...scorer, crowd_vs_scorer: { disagreements: 2, adjudicated: 0, crowd_right: 0, scorer_right: 0,
      scorer_right_pct: null, versus_one_worker: null } }
    const text = mount(ScoresPanel, { props: { scores: [bare] } }).find('[data-testid=crowd-vs-scorer]').text()
    expect(text).toContain('2 items where')
    expect(text).not.toContain('adjudicated')
    expect(text).not.toContain('single workers')
  })
  it('draws the ROC curve and calibration bins in the unit square', () => {
    const size = 228 // plot = 228 - 2 * 28 = 172
    const w = mount(ScoresPanel, { props: { scores: [scorer], size } })
    const points = w.find('[data-testid=roc-line]').attributes('points').split(' ').map((p) => p.split(',').map(Number))
    expect(points).toEqual([[28, 200], [28 + 0.25 * 172, 28 + 0.25 * 172], [200, 28]])
    const dots = w.findAll('[data-testid=calibration-bin]')
    expect(dots).toHaveLength(2)
    expect(Number(dots[1].attributes('cx'))).toBeCloseTo(28 + 0.95 * 172, 5)
    expect(Number(dots[1].attributes('cy'))).toBeCloseTo(28 + 0.1 * 172, 5)
    expect(Number(dots[1].attributes('r'))).toBeGreaterThan(Number(dots[0].attributes('r'))) // more items, bigger dot
  })
})
